//! The spot/margin v3 family: routing ([`ROUTES`]), parameters, authentication and the
//! endpoint handlers.
//!
//! DESIGN notes where the spec is silent:
//! - HTTP status: business errors are answered with HTTP 200 and `{"code":N,"msg":"..."}`; an
//!   unknown endpoint is HTTP 404 with 10009, a known path with the wrong method HTTP 405 with
//!   10001, and the request-weight limit HTTP 429 with 10005 and a `retry-after` header (seconds).
//! - `/currencies` is public (as the live service); `/deposit/*` and `/withdraw/*` are signed.
//! - Weight: every spot endpoint weighs 1 (the spec does not list weights).
//! - Permissions: GET endpoints need read; orders, cancels, transfers and position close need
//!   trade; `/withdraw/new` and `/withdraw/cancel` need withdraw.
//! - `{market}` = margin on a pair without margin trading answers 20019 (wrong pair).
//! - The `market` request parameter of the `{market}` endpoints (`/{market}/order/new`,
//!   `/{market}/order`, `/{market}/mytrades`, ... : the `{market}` rows of [`ROUTES`]): the
//!   reference lists it as a required parameter (`spot` or `margin`) and ccxt sends it, signed,
//!   with the path's value; its signing example omits it. DESIGN: the path decides, whatever
//!   the parameter says (absent, equal, or different). The live answer to a parameter that
//!   disagrees with the path is unknown, and a client that trades live (an independent REST
//!   client) sends `market=spot` on `/v3/margin/order` and on the margin history; refusing it
//!   would be an invented refusal, so the simulator accepts it and follows the path.
//! - Numbers in requests follow the grammar of [`crate::num::parse_dec`] (`-?digits[.digits]`
//!   with an optional exponent); anything else (`+5`, `.5`, `5.`, `1_000`, padded values) is an
//!   invalid parameter, 10004 (the `/transfer` amount keeps its documented 20024 "invalid
//!   amount"). Integers (`limit`, `size`, times, `from`/`to`) follow [`crate::num::parse_int`]
//!   (`-?digits`), else 10004 (the history windows' times keep 20014 "invalid date format",
//!   the withdrawal id 20033). In a form value a literal `+` is a space: `amount=+5` reads ` 5`
//!   and `%2B5` reads `+5`; both are refused.
//! - Pair case in answers follows the live venue (docs/protocol.md, "The live venue"): upper case (`BTC_USDT`) in
//!   the symbol lists and in order, order-detail, own-trade and margin-position records
//!   ([`pair_upper`]); lower case in `/ticker` and `/markets`. Requests accept either case.

pub mod account;
pub mod auth;
pub mod market;
pub mod orders;
pub mod wallet;

pub use crate::engine::spot::errors::{err, err_msg, message, SpotErr, R};
pub use crate::engine::spot::store::Kind;

use crate::config::SimConfig;
use crate::dialect::route::{find, Auth, Match, Route};
use crate::dialect::wire::{error_body, parse_form, SimRequest, SimResponse};
use crate::engine::accounts::AccountId;
use crate::engine::limiter::Subject;
use crate::engine::state::State;
use crate::json::J;
use http::Method;

/// Request parameters: query pairs first, then form-body pairs; the first occurrence wins, so
/// on duplicates the query-string value wins.
#[derive(Debug, Clone, Default)]
pub struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    /// Parses the query text and the body text.
    pub fn parse(query: &str, body: &str) -> Params {
        let mut pairs = parse_form(query);
        pairs.extend(parse_form(body));
        Params { pairs }
    }

    /// A parameter (empty values count as absent).
    pub fn get(&self, k: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }

    /// A required parameter (10004 when absent).
    pub fn req(&self, k: &str) -> Result<&str, SpotErr> {
        self.get(k)
            .ok_or_else(|| err_msg(10004, format!("missing parameter {k}")))
    }

    /// An optional integer (10004 when not in the [`crate::num::parse_int`] grammar).
    pub fn int(&self, k: &str) -> Result<Option<i64>, SpotErr> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => crate::num::parse_int(v)
                .map(Some)
                .ok_or_else(|| err_msg(10004, format!("{k} must be an integer"))),
        }
    }

    /// An optional integer limit in `1..=max` with a default (10004 outside).
    pub fn limit(&self, k: &str, default: i64, max: i64) -> Result<usize, SpotErr> {
        let v = self.int(k)?.unwrap_or(default);
        if v < 1 || v > max {
            return Err(err_msg(10004, format!("{k} must be within 1..={max}")));
        }
        Ok(usize::try_from(v).unwrap_or(1))
    }
}

/// Per-request context given to handlers.
pub struct Ctx<'a> {
    /// The configuration.
    pub config: &'a SimConfig,
    /// The state.
    pub st: &'a mut State,
    /// Simulator time (ms).
    pub now_ms: i64,
    /// Parameters.
    pub p: Params,
    /// Authenticated account (0 for public endpoints).
    pub user: AccountId,
    /// `{market}` segment (Spot for paths without one).
    pub kind: Kind,
    /// Extra path segment (`/withdraw/cancel/{id}`).
    pub path_arg: Option<String>,
}

impl Ctx<'_> {
    /// Simulator time in seconds.
    pub fn now_s(&self) -> i64 {
        self.now_ms.div_euclid(1000)
    }
}

/// A pair as the venue writes it in symbol lists and records: upper case (`BTC_USDT`).
pub fn pair_upper(symbol: &str) -> String {
    symbol.to_ascii_uppercase()
}

/// A spot handler: the whole answer object, or an error.
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

/// The spot/margin route table (paths after `/v3`; see [`crate::dialect::route`] for the templates).
/// Every endpoint weighs 1 (the spec does not list weights).
/// A `{market}` route runs with its path's market whatever the `market` request parameter
/// says (see the module docs); paths under `/margin/` run with [`Kind::Margin`].
#[rustfmt::skip]
pub const ROUTES: &[Route<Handler>] = &[
    r(Method::GET,  "/ping",                     1, Auth::Public,   |_| Ok(J::obj().with("msg", "pong").with("code", 0))),
    r(Method::GET,  "/time",                     1, Auth::Public,   |c| Ok(J::obj().with("server_time", c.now_s()).with("code", 0))),
    r(Method::GET,  "/markets",                  1, Auth::Public,   market::markets),
    r(Method::GET,  "/ticker",                   1, Auth::Public,   market::ticker),
    r(Method::GET,  "/order_book",               1, Auth::Public,   market::order_book),
    r(Method::GET,  "/trades",                   1, Auth::Public,   market::trades),
    r(Method::GET,  "/kline",                    1, Auth::Public,   market::kline),
    r(Method::GET,  "/spot/symbols",             1, Auth::Public,   |c| market::symbols(c, market::SymbolList::Spot)),
    r(Method::GET,  "/margin/currencies",        1, Auth::Public,   market::margin_currencies),
    r(Method::GET,  "/margin/symbols",           1, Auth::Public,   |c| market::symbols(c, market::SymbolList::Margin)),
    r(Method::GET,  "/trades/symbols",           1, Auth::Public,   |c| market::symbols(c, market::SymbolList::Api)),
    r(Method::GET,  "/currencies",               1, Auth::Public,   wallet::currencies),
    r(Method::GET,  "/spot/assets",              1, Auth::Read,     account::spot_assets),
    r(Method::GET,  "/margin/assets",            1, Auth::Read,     account::margin_assets),
    r(Method::GET,  "/{market}/financelog",      1, Auth::Read,     account::finance_log),
    r(Method::GET,  "/{market}/order",           1, Auth::Read,     orders::query),
    r(Method::GET,  "/{market}/order/detail",    1, Auth::Read,     orders::detail),
    r(Method::GET,  "/{market}/order/current",   1, Auth::Read,     orders::current),
    r(Method::GET,  "/{market}/order/history",   1, Auth::Read,     orders::history),
    r(Method::GET,  "/{market}/mytrades",        1, Auth::Read,     orders::my_trades),
    r(Method::GET,  "/margin/positions",         1, Auth::Read,     account::margin_positions),
    r(Method::GET,  "/deposit/address",          1, Auth::Read,     wallet::deposit_address),
    r(Method::GET,  "/deposit/history",          1, Auth::Read,     wallet::deposit_history),
    r(Method::GET,  "/withdraw/history",         1, Auth::Read,     wallet::withdraw_history),
    r(Method::POST, "/{market}/order/new",       1, Auth::Trade,    orders::new_order),
    r(Method::POST, "/{market}/order/batch_new", 1, Auth::Trade,    orders::batch_new),
    r(Method::POST, "/{market}/order/cancel",    1, Auth::Trade,    orders::cancel),
    r(Method::POST, "/transfer",                 1, Auth::Trade,    account::transfer),
    r(Method::POST, "/margin/position/close",    1, Auth::Trade,    account::position_close),
    r(Method::POST, "/withdraw/new",             1, Auth::Withdraw, wallet::withdraw_new),
    r(Method::POST, "/withdraw/cancel",          1, Auth::Withdraw, wallet::withdraw_cancel),
    r(Method::POST, "/withdraw/cancel/{id}",     1, Auth::Withdraw, wallet::withdraw_cancel),
];

/// Handles a request under `/v3` at `now_ms`: finds the route (404 10009 when unknown, 405
/// 10001 for another method), charges its weight (429 10005 when refused), authenticates, and
/// runs the handler.
pub fn handle(config: &SimConfig, st: &mut State, now_ms: i64, req: &SimRequest) -> SimResponse {
    let sub = req.path.strip_prefix("/v3").unwrap_or("");
    let (route, caps) = match find(ROUTES, &req.method, sub) {
        Match::Found(route, caps) => (route, caps),
        Match::WrongMethod(_) => return SimResponse::json(405, &error_body(10001, message(10001))),
        Match::Unknown => return SimResponse::json(404, &error_body(10009, message(10009))),
    };
    if let Err(resp) = charge(config, st, req, route, now_ms) {
        return resp;
    }
    let body_text = req.body_text();
    let user = match route.auth.permission() {
        None => 0,
        Some(p) => match auth::authenticate(st, req, &body_text, p, now_ms) {
            Ok(u) => u,
            Err(e) => return SimResponse::ok(&error_body(e.code, &e.msg)),
        },
    };
    let kind = kind_of(caps.get("market"), sub);
    let mut ctx = Ctx {
        config,
        st,
        now_ms,
        p: Params::parse(&req.query, &body_text),
        user,
        kind,
        path_arg: caps.get("id").map(str::to_owned),
    };
    let result = (route.handler)(&mut ctx);
    match result {
        Ok(j) => SimResponse::ok(&j),
        Err(e) => SimResponse::ok(&error_body(e.code, &e.msg)),
    }
}

/// The `{market}` a request runs with: the path's segment, else margin for paths under
/// `/margin/`, else spot.
fn kind_of(market: Option<&str>, path: &str) -> Kind {
    match market {
        Some("margin") => Kind::Margin,
        Some(_) => Kind::Spot,
        None if path.starts_with("/margin/") => Kind::Margin,
        None => Kind::Spot,
    }
}

/// Request weight: charged per IP always, and per key and user when the route is signed and
/// the key is known. A refusal is HTTP 429 with 10005 and `retry-after` (seconds).
fn charge(
    config: &SimConfig,
    st: &mut State,
    req: &SimRequest,
    route: &Route<Handler>,
    now_ms: i64,
) -> Result<(), SimResponse> {
    if !config.limits.weight_enabled {
        return Ok(());
    }
    let mut subjects = vec![Subject::Ip(req.peer)];
    if route.auth != Auth::Public {
        if let Some(k) = req.header("ACCESS-KEY").and_then(|k| st.keys.get(k)) {
            subjects.push(Subject::Key(k.key.clone()));
            subjects.push(Subject::User(k.account));
        }
    }
    st.spot_limiter
        .check(&subjects, route.weight, now_ms, true)
        .map_err(|refusal| {
            let secs = (refusal.retry_after_ms().saturating_add(999) / 1000).max(1);
            SimResponse::json(429, &error_body(10005, message(10005)))
                .with_header("retry-after", secs.to_string())
        })
}

/// `{"code":0}` plus fields.
pub fn ok0() -> J {
    J::obj().with("code", 0)
}

/// `{"code":200}` plus fields.
pub fn ok200() -> J {
    J::obj().with("code", 200)
}

/// Upper-case currency and whether it is known (in a market or the currency table).
pub fn known_currency(config: &SimConfig, c: &str) -> Option<String> {
    let up = c.trim().to_ascii_uppercase();
    let known = config.markets.iter().any(|m| m.base == up || m.quote == up)
        || config.currencies.iter().any(|x| x.currency == up);
    known.then_some(up)
}
