//! The perpetual swap v2 and copy-trading family (`/swap/v2/...`).
//!
//! Every answer is `{"code":0,"data":...}` on success and `{"code":N,"msg":"..."}` on error.
//!
//! As on the live venue (docs/protocol.md, "The live venue", "Swap and copy trading"):
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
//!   with `retry-after` (see [`crate::engine::swap::limits`]).
//! - Route weights the notes do not list (`api_weight` and the private routes) keep the
//!   simulator's earlier choices: `api_weight` 1, private routes 1-10 as in [`ROUTES`].
//! - Parameters: GET routes read the query string; POST routes read a JSON body (an object, or
//!   an array for `trade/batch_order` and `trade/batch_cancel_order`; an empty body is `{}`).
//!   POST content type `application/json` (any parameters) or none; any other content type
//!   answers 400002. Numbers may be sent as JSON numbers or as strings, decimals as strings or
//!   numbers; `""` and `null` count as absent. A string integer follows the
//!   [`crate::num::parse_int`] grammar (`-?digits`: no `+`, spaces or `_`), a JSON integer is
//!   taken as it is (`5.0` and `1e2` are not integers). A missing required parameter answers
//!   400001, an invalid one 400002.
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
//! Module map: [`auth`] (signature and timestamp window), [`market`] (public data),
//! [`account`], [`trade`], [`follow`] (copy trading); the engine below them
//! ([`crate::engine::swap`]: books, matching, positions, margin, funding, weights, copy
//! trading's records).

pub mod account;
pub mod auth;
pub mod follow;
pub mod market;
pub mod trade;

pub use crate::engine::swap::errors::{err, err_msg, SwapErr, R};

use crate::config::SimConfig;
use crate::dialect::route::{find, Auth, Match, Route};
use crate::dialect::wire::{parse_form, SimRequest, SimResponse};
use crate::engine::accounts::AccountId;
use crate::engine::limiter::Subject;
use crate::engine::state::State;
use crate::engine::swap::limits::Refusal;
use crate::json::J;
use crate::num::parse_dec;
use http::Method;
use rust_decimal::Decimal;
use serde_json::Value;

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

    /// An optional integer: a JSON integer, or a string in the [`crate::num::parse_int`]
    /// grammar (400002 otherwise).
    pub fn int(&self, k: &str) -> Result<Option<i64>, SwapErr> {
        let bad = || err_msg(400002, format!("{k} must be an integer"));
        match self.raw(k) {
            None => Ok(None),
            Some(Value::Number(n)) => n.as_i64().map(Some).ok_or_else(bad),
            Some(Value::String(s)) => crate::num::parse_int(s).map(Some).ok_or_else(bad),
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
    /// The configuration.
    pub config: &'a SimConfig,
    /// The state.
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

/// A swap handler: the `data` value, or an error.
pub type Handler = fn(&mut Ctx<'_>) -> R;

const fn r(
    method: Method,
    path: &'static str,
    weight: u32,
    auth: Auth,
    handler: Handler,
) -> Route<Handler> {
    Route {
        method,
        path,
        weight,
        auth,
        handler,
    }
}

/// The route table (also served by `public/api_weight`). Public weights follow docs/protocol.md ("Route weights"):
/// tickers, ticker, funding_rate, instrument, time, trades and candles 1; depth 2; instruments
/// 5; funding_rate_history and candles_history 10. GET routes read the query, POST routes a
/// JSON body; signed GET routes need read, signed POST routes trade, except the read-only
/// copy-trading listings.
#[rustfmt::skip]
pub const ROUTES: &[Route<Handler>] = &[
    r(Method::GET,  "/swap/v2/public/time",                      1,  Auth::Public, |c| Ok(J::Int(c.now_ms))),
    r(Method::GET,  "/swap/v2/public/api_weight",                1,  Auth::Public, api_weight),
    r(Method::GET,  "/swap/v2/public/instruments",               5,  Auth::Public, market::instruments),
    r(Method::GET,  "/swap/v2/public/instrument",                1,  Auth::Public, market::instrument),
    r(Method::GET,  "/swap/v2/public/depth",                     2,  Auth::Public, market::depth),
    r(Method::GET,  "/swap/v2/public/trades",                    1,  Auth::Public, market::trades),
    r(Method::GET,  "/swap/v2/public/ticker",                    1,  Auth::Public, market::ticker),
    r(Method::GET,  "/swap/v2/public/tickers",                   1,  Auth::Public, market::tickers),
    r(Method::GET,  "/swap/v2/public/candles",                   1,  Auth::Public, |c| market::candles(c, false)),
    r(Method::GET,  "/swap/v2/public/funding_rate",              1,  Auth::Public, market::funding_rate),
    r(Method::GET,  "/swap/v2/public/candles_history",           10, Auth::Public, |c| market::candles(c, true)),
    r(Method::GET,  "/swap/v2/public/funding_rate_history",      10, Auth::Public, market::funding_rate_history),
    r(Method::GET,  "/swap/v2/account/balance",                  2,  Auth::Read,   account::balance),
    r(Method::POST, "/swap/v2/account/transfer",                 5,  Auth::Trade,  account::transfer),
    r(Method::GET,  "/swap/v2/account/positions",                2,  Auth::Read,   account::positions),
    r(Method::POST, "/swap/v2/account/position_mode",            5,  Auth::Trade,  account::position_mode),
    r(Method::POST, "/swap/v2/account/position_margin",          5,  Auth::Trade,  account::position_margin),
    r(Method::POST, "/swap/v2/account/leverage",                 5,  Auth::Trade,  account::leverage),
    r(Method::GET,  "/swap/v2/account/trading_fee_rate",         1,  Auth::Read,   account::trading_fee_rate),
    r(Method::GET,  "/swap/v2/account/finance_record",           5,  Auth::Read,   account::finance_record),
    r(Method::GET,  "/swap/v2/account/funding_fee",              5,  Auth::Read,   account::funding_fee),
    r(Method::GET,  "/swap/v2/account/transfer_record",          5,  Auth::Read,   account::transfer_record),
    r(Method::POST, "/swap/v2/trade/order_place",                2,  Auth::Trade,  trade::order_place),
    r(Method::POST, "/swap/v2/trade/cancel_order",               1,  Auth::Trade,  trade::cancel_order),
    r(Method::POST, "/swap/v2/trade/batch_order",                10, Auth::Trade,  trade::batch_order),
    r(Method::POST, "/swap/v2/trade/batch_cancel_order",         5,  Auth::Trade,  trade::batch_cancel_order),
    r(Method::GET,  "/swap/v2/trade/open_orders",                2,  Auth::Read,   trade::open_orders),
    r(Method::GET,  "/swap/v2/trade/order_info",                 1,  Auth::Read,   trade::order_info),
    r(Method::GET,  "/swap/v2/trade/history_orders",             5,  Auth::Read,   trade::history_orders),
    r(Method::GET,  "/swap/v2/trade/history_trades",             5,  Auth::Read,   trade::history_trades),
    r(Method::POST, "/swap/v2/follow/sponsor_order",             5,  Auth::Trade,  follow::sponsor_order),
    r(Method::POST, "/swap/v2/follow/close_order",               5,  Auth::Trade,  follow::close_order),
    r(Method::POST, "/swap/v2/follow/cancel_order",              2,  Auth::Trade,  follow::cancel_order),
    r(Method::POST, "/swap/v2/follow/user_center_current",       5,  Auth::Read,   follow::user_center_current),
    r(Method::POST, "/swap/v2/follow/user_center_history",       5,  Auth::Read,   follow::user_center_history),
    r(Method::POST, "/swap/v2/follow/expert_current_open_order", 5,  Auth::Read,   follow::expert_open_orders),
    r(Method::POST, "/swap/v2/follow/add_algo",                  2,  Auth::Trade,  follow::add_algo),
    r(Method::POST, "/swap/v2/follow/cancel_algo",               2,  Auth::Trade,  follow::cancel_algo),
    r(Method::POST, "/swap/v2/follow/account_available",         1,  Auth::Read,   follow::account_available),
    r(Method::POST, "/swap/v2/follow/plan_task",                 5,  Auth::Read,   follow::plan_task),
    r(Method::POST, "/swap/v2/follow/instrument_list",           2,  Auth::Read,   follow::instrument_list),
];

/// `public/api_weight`: every route's path and weight, in table order.
fn api_weight(_: &mut Ctx<'_>) -> R {
    Ok(J::Arr(
        ROUTES
            .iter()
            .map(|r| J::obj().with("path", r.path).with("weight", r.weight))
            .collect(),
    ))
}

/// The path without a trailing `/` (`/` itself stays).
fn trim_path(path: &str) -> &str {
    if path.len() > 1 {
        path.trim_end_matches('/')
    } else {
        path
    }
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

/// Handles a request under `/swap/`: finds the route (plain-text 404 when unknown), charges its
/// weight (429 or 403 when refused), checks the method (405), authenticates, reads the
/// parameters and runs the handler. Every answer of a known path carries the usage headers.
pub fn handle(config: &SimConfig, st: &mut State, now: i64, req: &SimRequest) -> SimResponse {
    let (route, right_method) = match find(ROUTES, &req.method, trim_path(&req.path)) {
        Match::Found(route, _) => (route, true),
        Match::WrongMethod(route) => (route, false),
        Match::Unknown => return not_found(),
    };
    let subjects = subjects(st, req, route);
    let resp = match charge(config, st, &subjects, route, now) {
        Err(refused) => refused,
        Ok(()) if !right_method => {
            SimResponse::json(405, &error_json(&err_msg(400002, "wrong request method")))
        }
        Ok(()) => run(config, st, req, route, now).unwrap_or_else(|e| error_response(&e)),
    };
    usage_headers(st, &subjects, now, resp)
}

/// Weight subjects: the account and the key for a signed route with a known key, else the IP.
fn subjects(st: &State, req: &SimRequest, route: &Route<Handler>) -> Vec<Subject> {
    let known = match route.auth {
        Auth::Public => None,
        _ => req.header("ACCESS-KEY").and_then(|k| st.keys.get(k.trim())),
    };
    match known {
        Some(k) => vec![Subject::User(k.account), Subject::Key(k.key.clone())],
        None => vec![Subject::Ip(req.peer)],
    }
}

/// Charges the route's weight (only counted when limits are off); a refusal is HTTP 429
/// (403001) or, banned, HTTP 403 (403002), with `retry-after` in seconds.
fn charge(
    config: &SimConfig,
    st: &mut State,
    subjects: &[Subject],
    route: &Route<Handler>,
    now: i64,
) -> Result<(), SimResponse> {
    let enforce = config.limits.weight_enabled;
    st.swap
        .limiter
        .check(subjects, route.weight, now, enforce)
        .map_err(|refusal| {
            let (status, code) = match refusal {
                Refusal::TooMany { .. } => (429, 403001),
                Refusal::Banned { .. } => (403, 403002),
            };
            let secs = (refusal.retry_after_ms().saturating_add(999) / 1000).max(1);
            SimResponse::json(status, &error_json(&err(code)))
                .with_header("retry-after", secs.to_string())
        })
}

/// Authenticates, reads the parameters and runs the handler of a route called with its method.
fn run(
    config: &SimConfig,
    st: &mut State,
    req: &SimRequest,
    route: &Route<Handler>,
    now: i64,
) -> Result<SimResponse, SwapErr> {
    let body_text = req.body_text();
    let user = match route.auth.permission() {
        None => 0,
        Some(need) => auth::authenticate(st, req, &body_text, need, now)?,
    };
    let (p, body) = if route.method == Method::POST {
        let body = json_body(req, &body_text)?;
        (Params::from_json(&body), body)
    } else {
        (Params::from_query(&req.query), Value::Null)
    };
    crate::engine::swap::timed::tick(st, now);
    let mut ctx = Ctx {
        config,
        st,
        now_ms: now,
        p,
        body,
        user,
    };
    let data = (route.handler)(&mut ctx)?;
    Ok(SimResponse::ok(
        &J::obj().with("code", 0).with("data", data),
    ))
}

/// The JSON body of a POST (`{}` when empty); 400002 for another content type or non-JSON.
fn json_body(req: &SimRequest, body_text: &str) -> Result<Value, SwapErr> {
    if !json_content(req) {
        return Err(err_msg(400002, "content type must be application/json"));
    }
    if body_text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(body_text).map_err(|_| err_msg(400002, "body is not JSON"))
}

/// A decimal as a JSON string (the swap style).
pub fn s(d: Decimal) -> J {
    J::dec_str(d)
}
