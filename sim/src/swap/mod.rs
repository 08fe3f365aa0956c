//! The perpetual swap v2 and copy-trading family (`/swap/v2/...`).
//!
//! Every answer is `{"code":0,"data":...}` on success and `{"code":N,"msg":"..."}` on error.
//!
//! As on the live venue (venue-notes.md, "Perpetual swap and copy trading (v2)"):
//! - Errors (parameter, authentication, permission and business errors alike) answer **HTTP
//!   400** with `{"code":N,"msg":"..."}`, e.g. `{"code":400002,"msg":"invalid InstrumentId"}`.
//! - An unknown path under `/swap/` answers HTTP 404 with the plain-text body
//!   `404 page not found` (`text/plain`), without usage headers and without charging weight.
//! - The weight budget is 6,000 per minute per IP for public routes by default
//!   ([`crate::LimitsConfig::swap_weight_per_minute`]); the route weights are those of the notes
//!   (see [`ROUTES`], served by `public/api_weight`).
//!
//! DESIGN notes where the spec and the notes are silent:
//! - HTTP status: a known path with the wrong method answers HTTP 405 with 400002 (the live
//!   answer is unknown); the weight limit HTTP 429 (403001) and bans HTTP 403 (403002), both
//!   with `retry-after` (see [`limits`]).
//! - Route weights the notes do not list (`api_weight` and the private routes) keep the
//!   simulator's earlier choices: `api_weight` 1, private routes 1-10 as in [`ROUTES`].
//! - Parameters: GET routes read the query string; POST routes read a JSON body (an object, or
//!   an array for `trade/batch_order` and `trade/batch_cancel_order`; an empty body is `{}`).
//!   POST content type `application/json` (any parameters) or none; any other content type
//!   answers 400002. Numbers may be sent as JSON numbers or as strings, decimals as strings or
//!   numbers; `""` and `null` count as absent. A missing required parameter answers 400001, an
//!   invalid one 400002.
//! - `limit` is 1..=100 (default 20) on every list; outside answers 400002 (not clamped).
//! - Lists are newest first (trades, candles, funding history, orders, fills, bills, records).
//! - `type` 1 (simulated trading) on `instruments` and `tickers` lists the simulated contracts
//!   (see [`market`]); on `balance` and `positions` it answers an empty list.
//! - Permissions: GET routes need read, POST routes trade; the copy-trading listings (POST but
//!   read-only: `user_center_*`, `expert_current_open_order`, `account_available`, `plan_task`,
//!   `instrument_list`) need read.
//! - Usage headers (`ip-weight-minute-use`/`-remain` on public routes, `account-` and `apikey-`
//!   ones on private routes) are on every answer of a known `/swap/` path, including errors
//!   (not on answers produced by fault injection, nor on the unknown-path 404). A private
//!   request whose key is unknown is charged to the caller IP and reports the IP headers.
//!
//! Module map: [`auth`] (signature and timestamp window), [`limits`] (weights, 429, bans),
//! [`engine`] (books, matching, positions, margin, funding), [`market`] (public data),
//! [`account`], [`trade`], [`copy`].

pub mod account;
pub mod auth;
pub mod copy;
pub mod engine;
pub mod limits;
pub mod market;
pub mod trade;

pub use engine::SwapState;

use crate::accounts::{AccountId, Permission};
use crate::json::J;
use crate::limiter::Subject;
use crate::num::parse_dec;
use crate::server::Shared;
use crate::state::State;
use crate::wire::{parse_form, SimRequest, SimResponse};
use rust_decimal::Decimal;
use serde_json::Value;
use std::sync::Arc;

/// A swap error: code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapErr {
    /// Code from the spec's table.
    pub code: i64,
    /// Message.
    pub msg: String,
}

/// Result of a handler: the `data` value, or an error.
pub type R = Result<J, SwapErr>;

/// The error `code` with its table message.
pub fn err(code: i64) -> SwapErr {
    SwapErr {
        code,
        msg: message(code).to_owned(),
    }
}

/// The error `code` with a specific message.
pub fn err_msg(code: i64, msg: impl Into<String>) -> SwapErr {
    SwapErr {
        code,
        msg: msg.into(),
    }
}

/// Message of each documented code.
pub fn message(code: i64) -> &'static str {
    match code {
        400001 => "required parameter missing",
        400002 => "parameter invalid",
        400003 => "IP not authenticated",
        400004 => "signature mismatch",
        400005 => "permission denied",
        400006 => "invalid API key",
        401001 => "leverage cannot change while unfinished orders exist",
        401002 => "position open value above maximum",
        401003 => "balance insufficient",
        401004 => "instrument trading suspended",
        401005 => "instrument under maintenance",
        401006 => "order size below minimum",
        401007 => "price precision invalid",
        401008 => "instrument denies market orders",
        401009 => "market order unsupported when the opposite side is empty",
        401010 => "price above maximum buy price",
        401011 => "price below minimum sell price",
        401012 => "position too small to close",
        401013 => "order price inferior to liquidation price",
        401014 => "batch order or cancel count over 20",
        401015 => "action requires isolated position mode",
        401016 => "cannot do this while a position exists",
        401017 => "cannot do this while no position exists",
        401018 => "transfer request not allowed",
        401019 => "transfer in risk control",
        403001 => "frequency limit reached",
        403002 => "forbidden after repeated requests past the frequency limit",
        404001 => "expert locked, cannot open positions",
        404002 => "contract in settlement",
        404003 => "copy contract offline or nonexistent",
        404004 => "positions exist, margin mode or leverage cannot change",
        404005 => "copy orders exist, margin mode or leverage cannot change",
        404006 => "a pending order exists, margin mode or leverage cannot change",
        404007 => "order price deviates too far from mark price",
        404008 => "take-profit price must be above the order price",
        404009 => "take-profit price must be below the order price",
        404010 => "stop-loss price must be below the order price",
        404011 => "stop-loss price must be above the order price",
        404012 => "order already executed to close the position",
        404013 => "order does not exist",
        404014 => "take-profit already exists",
        404015 => "stop-loss already exists",
        _ => "system error",
    }
}

/// Error body `{"code":N,"msg":"..."}`.
pub fn error_json(e: &SwapErr) -> J {
    J::obj().with("code", e.code).with("msg", e.msg.as_str())
}

/// Request parameters (query pairs or the members of a JSON object).
#[derive(Debug, Clone, Default)]
pub struct Params {
    pairs: Vec<(String, Value)>,
}

impl Params {
    /// From query text.
    pub fn from_query(query: &str) -> Params {
        Params {
            pairs: parse_form(query)
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect(),
        }
    }

    /// From a JSON object (other values give no parameters).
    pub fn from_json(v: &Value) -> Params {
        Params {
            pairs: v
                .as_object()
                .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default(),
        }
    }

    /// The raw value; `null` and `""` are absent.
    pub fn raw(&self, k: &str) -> Option<&Value> {
        self.pairs
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v)
            .filter(|v| !v.is_null() && v.as_str() != Some(""))
    }

    /// A text parameter (strings, or numbers as their text).
    pub fn text(&self, k: &str) -> Result<Option<String>, SwapErr> {
        match self.raw(k) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_owned())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(_) => Err(err_msg(400002, format!("{k} must be a string"))),
        }
    }

    /// A required text parameter.
    pub fn req(&self, k: &str) -> Result<String, SwapErr> {
        self.text(k)?
            .ok_or_else(|| err_msg(400001, format!("missing parameter {k}")))
    }

    /// An optional integer.
    pub fn int(&self, k: &str) -> Result<Option<i64>, SwapErr> {
        let bad = || err_msg(400002, format!("{k} must be an integer"));
        match self.raw(k) {
            None => Ok(None),
            Some(Value::Number(n)) => n.as_i64().map(Some).ok_or_else(bad),
            Some(Value::String(s)) => s.trim().parse().map(Some).map_err(|_| bad()),
            Some(_) => Err(bad()),
        }
    }

    /// A required integer.
    pub fn req_int(&self, k: &str) -> Result<i64, SwapErr> {
        self.int(k)?
            .ok_or_else(|| err_msg(400001, format!("missing parameter {k}")))
    }

    /// An optional decimal (string or number).
    pub fn dec(&self, k: &str) -> Result<Option<Decimal>, SwapErr> {
        match self.text(k)? {
            None => Ok(None),
            Some(t) => parse_dec(&t)
                .map(Some)
                .ok_or_else(|| err_msg(400002, format!("{k} must be a number"))),
        }
    }

    /// A required decimal.
    pub fn req_dec(&self, k: &str) -> Result<Decimal, SwapErr> {
        self.dec(k)?
            .ok_or_else(|| err_msg(400001, format!("missing parameter {k}")))
    }

    /// An optional boolean (`true`/`false`, also as strings, or 0/1).
    pub fn bool(&self, k: &str) -> Result<Option<bool>, SwapErr> {
        match self.raw(k) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) if s == "true" || s == "1" => Ok(Some(true)),
            Some(Value::String(s)) if s == "false" || s == "0" => Ok(Some(false)),
            Some(Value::Number(n)) if n.as_i64() == Some(1) => Ok(Some(true)),
            Some(Value::Number(n)) if n.as_i64() == Some(0) => Ok(Some(false)),
            Some(_) => Err(err_msg(400002, format!("{k} must be a boolean"))),
        }
    }

    /// `limit` in 1..=100, default 20.
    pub fn limit(&self) -> Result<usize, SwapErr> {
        let v = self.int("limit")?.unwrap_or(20);
        if !(1..=100).contains(&v) {
            return Err(err_msg(400002, "invalid Limit"));
        }
        Ok(usize::try_from(v).unwrap_or(20))
    }

    /// `start_timestamp` and `end_timestamp` (400002 when the end is before the start).
    pub fn window(&self) -> Result<(Option<i64>, Option<i64>), SwapErr> {
        let s = self.int("start_timestamp")?;
        let e = self.int("end_timestamp")?;
        if let (Some(s), Some(e)) = (s, e) {
            if e < s {
                return Err(err_msg(
                    400002,
                    "end_timestamp must not be before start_timestamp",
                ));
            }
        }
        Ok((s, e))
    }
}

/// Whether `t` is inside an optional window.
pub fn in_window(t: i64, w: (Option<i64>, Option<i64>)) -> bool {
    w.0.is_none_or(|s| t >= s) && w.1.is_none_or(|e| t <= e)
}

/// Per-request context given to handlers.
pub struct Ctx<'a> {
    /// Shared server pieces.
    pub shared: &'a Shared,
    /// Locked state.
    pub st: &'a mut State,
    /// Simulator time (ms).
    pub now_ms: i64,
    /// Parameters (for array bodies: none).
    pub p: Params,
    /// The JSON body (`Null` for GET).
    pub body: Value,
    /// Authenticated account (0 for public routes).
    pub user: AccountId,
}

impl Ctx<'_> {
    /// Instrument index of the required `instrument_id` (400002 when unknown).
    pub fn instrument(&self) -> Result<usize, SwapErr> {
        let id = self.p.req("instrument_id")?;
        self.lookup(&id)
    }

    /// Instrument index of `id` (400002 `invalid InstrumentId`, the live message, when unknown).
    pub fn lookup(&self, id: &str) -> Result<usize, SwapErr> {
        self.st
            .swap
            .index(id)
            .ok_or_else(|| err_msg(400002, "invalid InstrumentId"))
    }
}

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// No authentication.
    Public,
    /// Signed, needs read.
    Read,
    /// Signed, needs trade.
    Trade,
}

/// Every swap endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Ep {
    Time,
    ApiWeight,
    Instruments,
    Instrument,
    Depth,
    Trades,
    Ticker,
    Tickers,
    Candles,
    FundingRate,
    CandlesHistory,
    FundingRateHistory,
    Balance,
    Transfer,
    Positions,
    PositionMode,
    PositionMargin,
    Leverage,
    TradingFeeRate,
    FinanceRecord,
    FundingFee,
    TransferRecord,
    OrderPlace,
    CancelOrder,
    BatchOrder,
    BatchCancelOrder,
    OpenOrders,
    OrderInfo,
    HistoryOrders,
    HistoryTrades,
    SponsorOrder,
    CloseOrder,
    CopyCancelOrder,
    UserCenterCurrent,
    UserCenterHistory,
    ExpertOpenOrders,
    AddAlgo,
    CancelAlgo,
    AccountAvailable,
    PlanTask,
    InstrumentList,
}

/// A route: path, method (`true` for POST), access, weight, endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// Full path.
    pub path: &'static str,
    /// POST (else GET).
    pub post: bool,
    /// Access.
    pub access: Access,
    /// Request weight.
    pub weight: u32,
    /// Endpoint.
    pub ep: Ep,
}

const fn r(path: &'static str, post: bool, access: Access, weight: u32, ep: Ep) -> Route {
    Route {
        path,
        post,
        access,
        weight,
        ep,
    }
}

/// The route table (also served by `public/api_weight`). Public weights follow venue-notes.md:
/// tickers, ticker, funding_rate, instrument, time, trades and candles 1; depth 2; instruments
/// 5; funding_rate_history and candles_history 10.
pub const ROUTES: &[Route] = &[
    r("/swap/v2/public/time", false, Access::Public, 1, Ep::Time),
    r(
        "/swap/v2/public/api_weight",
        false,
        Access::Public,
        1,
        Ep::ApiWeight,
    ),
    r(
        "/swap/v2/public/instruments",
        false,
        Access::Public,
        5,
        Ep::Instruments,
    ),
    r(
        "/swap/v2/public/instrument",
        false,
        Access::Public,
        1,
        Ep::Instrument,
    ),
    r("/swap/v2/public/depth", false, Access::Public, 2, Ep::Depth),
    r(
        "/swap/v2/public/trades",
        false,
        Access::Public,
        1,
        Ep::Trades,
    ),
    r(
        "/swap/v2/public/ticker",
        false,
        Access::Public,
        1,
        Ep::Ticker,
    ),
    r(
        "/swap/v2/public/tickers",
        false,
        Access::Public,
        1,
        Ep::Tickers,
    ),
    r(
        "/swap/v2/public/candles",
        false,
        Access::Public,
        1,
        Ep::Candles,
    ),
    r(
        "/swap/v2/public/funding_rate",
        false,
        Access::Public,
        1,
        Ep::FundingRate,
    ),
    r(
        "/swap/v2/public/candles_history",
        false,
        Access::Public,
        10,
        Ep::CandlesHistory,
    ),
    r(
        "/swap/v2/public/funding_rate_history",
        false,
        Access::Public,
        10,
        Ep::FundingRateHistory,
    ),
    r(
        "/swap/v2/account/balance",
        false,
        Access::Read,
        2,
        Ep::Balance,
    ),
    r(
        "/swap/v2/account/transfer",
        true,
        Access::Trade,
        5,
        Ep::Transfer,
    ),
    r(
        "/swap/v2/account/positions",
        false,
        Access::Read,
        2,
        Ep::Positions,
    ),
    r(
        "/swap/v2/account/position_mode",
        true,
        Access::Trade,
        5,
        Ep::PositionMode,
    ),
    r(
        "/swap/v2/account/position_margin",
        true,
        Access::Trade,
        5,
        Ep::PositionMargin,
    ),
    r(
        "/swap/v2/account/leverage",
        true,
        Access::Trade,
        5,
        Ep::Leverage,
    ),
    r(
        "/swap/v2/account/trading_fee_rate",
        false,
        Access::Read,
        1,
        Ep::TradingFeeRate,
    ),
    r(
        "/swap/v2/account/finance_record",
        false,
        Access::Read,
        5,
        Ep::FinanceRecord,
    ),
    r(
        "/swap/v2/account/funding_fee",
        false,
        Access::Read,
        5,
        Ep::FundingFee,
    ),
    r(
        "/swap/v2/account/transfer_record",
        false,
        Access::Read,
        5,
        Ep::TransferRecord,
    ),
    r(
        "/swap/v2/trade/order_place",
        true,
        Access::Trade,
        2,
        Ep::OrderPlace,
    ),
    r(
        "/swap/v2/trade/cancel_order",
        true,
        Access::Trade,
        1,
        Ep::CancelOrder,
    ),
    r(
        "/swap/v2/trade/batch_order",
        true,
        Access::Trade,
        10,
        Ep::BatchOrder,
    ),
    r(
        "/swap/v2/trade/batch_cancel_order",
        true,
        Access::Trade,
        5,
        Ep::BatchCancelOrder,
    ),
    r(
        "/swap/v2/trade/open_orders",
        false,
        Access::Read,
        2,
        Ep::OpenOrders,
    ),
    r(
        "/swap/v2/trade/order_info",
        false,
        Access::Read,
        1,
        Ep::OrderInfo,
    ),
    r(
        "/swap/v2/trade/history_orders",
        false,
        Access::Read,
        5,
        Ep::HistoryOrders,
    ),
    r(
        "/swap/v2/trade/history_trades",
        false,
        Access::Read,
        5,
        Ep::HistoryTrades,
    ),
    r(
        "/swap/v2/follow/sponsor_order",
        true,
        Access::Trade,
        5,
        Ep::SponsorOrder,
    ),
    r(
        "/swap/v2/follow/close_order",
        true,
        Access::Trade,
        5,
        Ep::CloseOrder,
    ),
    r(
        "/swap/v2/follow/cancel_order",
        true,
        Access::Trade,
        2,
        Ep::CopyCancelOrder,
    ),
    r(
        "/swap/v2/follow/user_center_current",
        true,
        Access::Read,
        5,
        Ep::UserCenterCurrent,
    ),
    r(
        "/swap/v2/follow/user_center_history",
        true,
        Access::Read,
        5,
        Ep::UserCenterHistory,
    ),
    r(
        "/swap/v2/follow/expert_current_open_order",
        true,
        Access::Read,
        5,
        Ep::ExpertOpenOrders,
    ),
    r(
        "/swap/v2/follow/add_algo",
        true,
        Access::Trade,
        2,
        Ep::AddAlgo,
    ),
    r(
        "/swap/v2/follow/cancel_algo",
        true,
        Access::Trade,
        2,
        Ep::CancelAlgo,
    ),
    r(
        "/swap/v2/follow/account_available",
        true,
        Access::Read,
        1,
        Ep::AccountAvailable,
    ),
    r(
        "/swap/v2/follow/plan_task",
        true,
        Access::Read,
        5,
        Ep::PlanTask,
    ),
    r(
        "/swap/v2/follow/instrument_list",
        true,
        Access::Read,
        2,
        Ep::InstrumentList,
    ),
];

/// The route of a path.
pub fn route_of(path: &str) -> Option<&'static Route> {
    let path = if path.len() > 1 {
        path.trim_end_matches('/')
    } else {
        path
    };
    ROUTES.iter().find(|r| r.path == path)
}

fn usage_headers(st: &State, subjects: &[Subject], now: i64, mut resp: SimResponse) -> SimResponse {
    for s in subjects {
        let u = st.swap.limiter.usage(s, now);
        let prefix = s.header_prefix();
        resp = resp
            .with_header(&format!("{prefix}-weight-minute-use"), u.used.to_string())
            .with_header(
                &format!("{prefix}-weight-minute-remain"),
                u.remaining.to_string(),
            );
    }
    resp
}

fn json_content(req: &SimRequest) -> bool {
    match req.header("content-type") {
        None => true,
        Some(ct) => {
            let ct = ct.trim().to_ascii_lowercase();
            ct.is_empty() || ct.starts_with("application/json")
        }
    }
}

/// The answer to an unknown path: HTTP 404, plain text, no usage headers.
pub fn not_found() -> SimResponse {
    SimResponse {
        status: 404,
        headers: Vec::new(),
        content_type: "text/plain; charset=utf-8",
        body: b"404 page not found".to_vec(),
    }
}

/// An error answer: HTTP 400 with `{"code":N,"msg":"..."}`.
pub fn error_response(e: &SwapErr) -> SimResponse {
    SimResponse::json(400, &error_json(e))
}

/// Handles a request under `/swap/`.
pub fn handle(shared: &Arc<Shared>, req: &SimRequest) -> SimResponse {
    let Some(route) = route_of(&req.path) else {
        return not_found();
    };
    let now = shared.clock.now_ms();
    let mut guard = shared.state();
    let st: &mut State = &mut guard;
    let enforce = shared.config.limits.weight_enabled;

    // Weight subjects.
    let known_key = if route.access == Access::Public {
        None
    } else {
        req.header("ACCESS-KEY")
            .and_then(|k| st.keys.get(k.trim()))
            .map(|k| (k.key.clone(), k.account))
    };
    let subjects = match &known_key {
        Some((key, account)) => vec![Subject::User(*account), Subject::Key(key.clone())],
        None => vec![Subject::Ip(req.peer)],
    };
    let weight = route.weight;
    if let Err(refusal) = st.swap.limiter.check(&subjects, weight, now, enforce) {
        let (status, code, ms) = match refusal {
            limits::Refusal::TooMany { retry_after_ms } => (429, 403001, retry_after_ms),
            limits::Refusal::Banned { retry_after_ms } => (403, 403002, retry_after_ms),
        };
        let secs = ((ms + 999) / 1000).max(1);
        let resp = SimResponse::json(status, &error_json(&err(code)))
            .with_header("retry-after", secs.to_string());
        return usage_headers(st, &subjects, now, resp);
    }

    let resp = run(shared, st, req, route, now);
    usage_headers(st, &subjects, now, resp)
}

fn run(
    shared: &Shared,
    st: &mut State,
    req: &SimRequest,
    route: &'static Route,
    now: i64,
) -> SimResponse {
    let want = if route.post {
        http::Method::POST
    } else {
        http::Method::GET
    };
    if req.method != want {
        return SimResponse::json(405, &error_json(&err_msg(400002, "wrong request method")));
    }
    let body_text = req.body_text();
    let user = match route.access {
        Access::Public => 0,
        access => {
            let need = if access == Access::Read {
                Permission::Read
            } else {
                Permission::Trade
            };
            match auth::authenticate(st, req, &body_text, need, now) {
                Ok(u) => u,
                Err(e) => return error_response(&e),
            }
        }
    };
    let (p, body) = if route.post {
        if !json_content(req) {
            return error_response(&err_msg(400002, "content type must be application/json"));
        }
        let body: Value = if body_text.trim().is_empty() {
            Value::Object(Default::default())
        } else {
            match serde_json::from_str(&body_text) {
                Ok(v) => v,
                Err(_) => return error_response(&err_msg(400002, "body is not JSON")),
            }
        };
        (Params::from_json(&body), body)
    } else {
        (Params::from_query(&req.query), Value::Null)
    };
    engine::tick(st, now);
    let mut ctx = Ctx {
        shared,
        st,
        now_ms: now,
        p,
        body,
        user,
    };
    match dispatch(route.ep, &mut ctx) {
        Ok(data) => SimResponse::ok(&J::obj().with("code", 0).with("data", data)),
        Err(e) => error_response(&e),
    }
}

fn dispatch(ep: Ep, c: &mut Ctx<'_>) -> R {
    use Ep::*;
    match ep {
        Time => Ok(J::Int(c.now_ms)),
        ApiWeight => Ok(J::Arr(
            ROUTES
                .iter()
                .map(|r| J::obj().with("path", r.path).with("weight", r.weight))
                .collect(),
        )),
        Instruments => market::instruments(c),
        Instrument => market::instrument(c),
        Depth => market::depth(c),
        Trades => market::trades(c),
        Ticker => market::ticker(c),
        Tickers => market::tickers(c),
        Candles => market::candles(c, false),
        CandlesHistory => market::candles(c, true),
        FundingRate => market::funding_rate(c),
        FundingRateHistory => market::funding_rate_history(c),
        Balance => account::balance(c),
        Transfer => account::transfer(c),
        Positions => account::positions(c),
        PositionMode => account::position_mode(c),
        PositionMargin => account::position_margin(c),
        Leverage => account::leverage(c),
        TradingFeeRate => account::trading_fee_rate(c),
        FinanceRecord => account::finance_record(c),
        FundingFee => account::funding_fee(c),
        TransferRecord => account::transfer_record(c),
        OrderPlace => trade::order_place(c),
        CancelOrder => trade::cancel_order(c),
        BatchOrder => trade::batch_order(c),
        BatchCancelOrder => trade::batch_cancel_order(c),
        OpenOrders => trade::open_orders(c),
        OrderInfo => trade::order_info(c),
        HistoryOrders => trade::history_orders(c),
        HistoryTrades => trade::history_trades(c),
        SponsorOrder => copy::sponsor_order(c),
        CloseOrder => copy::close_order(c),
        CopyCancelOrder => copy::cancel_order(c),
        UserCenterCurrent => copy::user_center_current(c),
        UserCenterHistory => copy::user_center_history(c),
        ExpertOpenOrders => copy::expert_open_orders(c),
        AddAlgo => copy::add_algo(c),
        CancelAlgo => copy::cancel_algo(c),
        AccountAvailable => copy::account_available(c),
        PlanTask => copy::plan_task(c),
        InstrumentList => copy::instrument_list(c),
    }
}

/// A decimal as a JSON string (the swap style).
pub fn s(d: Decimal) -> J {
    J::dec_str(d)
}
