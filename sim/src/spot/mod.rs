//! The spot/margin v3 family: routing, parameters, authentication and the endpoint handlers.
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
//!   `/{market}/order`, `/{market}/mytrades`, ... : see [`Ep::has_market_segment`]): the
//!   reference lists it as a required parameter (`spot` or `margin`) and ccxt sends it, signed,
//!   with the path's value; its signing example omits it. It is accepted when it equals the
//!   path's `{market}` ignoring ASCII case, and when absent (or empty, which counts as absent
//!   like every parameter). A value that disagrees with the path answers 10004 with a message
//!   naming both values. DESIGN: the live answer to a disagreement is unknown; 10004 (invalid
//!   parameter) refuses the request instead of guessing which of the two the caller meant. The
//!   check runs after authentication, before the endpoint's own checks.
//! - Numbers in requests follow the grammar of [`crate::num::parse_dec`] (`-?digits[.digits]`
//!   with an optional exponent); anything else (`+5`, `.5`, `5.`, `1_000`, padded values) is an
//!   invalid parameter, 10004 (the `/transfer` amount keeps its documented 20024 "invalid
//!   amount"). In a form value a literal `+` is a space: `amount=+5` reads ` 5` and `%2B5` reads
//!   `+5`; both are refused.
//! - Pair case in answers follows the live venue (venue-notes.md): upper case (`BTC_USDT`) in
//!   the symbol lists and in order, order-detail, own-trade and margin-position records
//!   ([`pair_upper`]); lower case in `/ticker` and `/markets`. Requests accept either case.

pub mod account;
pub mod auth;
pub mod engine;
pub mod market;
pub mod orders;
pub mod risk;
pub mod wallet;

pub use engine::SpotState;

use crate::accounts::{AccountId, Permission};
use crate::json::J;
use crate::limiter::Subject;
use crate::server::Shared;
use crate::state::State;
use crate::wire::{error_body, parse_form, SimRequest, SimResponse};
use http::Method;
use rust_decimal::Decimal;

/// A spot error: code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpotErr {
    /// Error code from the spec's table.
    pub code: i64,
    /// Message.
    pub msg: String,
}

/// Result of a handler: the whole response object, or an error.
pub type R = Result<J, SpotErr>;

/// The error `code` with its table message.
pub fn err(code: i64) -> SpotErr {
    SpotErr {
        code,
        msg: message(code).to_owned(),
    }
}

/// The error `code` with a specific message.
pub fn err_msg(code: i64, msg: impl Into<String>) -> SpotErr {
    SpotErr {
        code,
        msg: msg.into(),
    }
}

/// Message of each documented code.
pub fn message(code: i64) -> &'static str {
    match code {
        10001 => "wrong request method",
        10002 => "invalid API key",
        10003 => "signature mismatch",
        10004 => "illegal request parameters",
        10005 => "request frequency limit exceeded",
        10006 => "not authorized for this request",
        10007 => "IP address not whitelisted",
        10008 => "timestamp invalid",
        10009 => "endpoint unknown or ACCESS-KEY missing",
        10011 => "API key expired",
        20002 => "trading of this pair suspended",
        20007 => "price precision error",
        20008 => "amount precision error",
        20009 => "amount below minimum",
        20010 => "cash amount below minimum",
        20011 => "insufficient balance",
        20012 => "invalid trade type",
        20013 => "order not found",
        20014 => "invalid date format",
        20015 => "queried date range exceeds the limit",
        20018 => "API trading banned by the system",
        20019 => "wrong pair symbol",
        20020 => "trading rules violated; temporarily banned",
        20021 => "invalid currency",
        20022 => "end time must be at least the start time",
        20023 => "invalid transfer type",
        20024 => "invalid amount",
        20026 => "transfer amount exceeds balance",
        20030 => "no position on this pair",
        20031 => "batch order limit",
        20033 => "wrong withdrawal id",
        20034 => "withdrawals closed for this currency",
        20035 => "withdrawal amount limit",
        20037 => "address, tag or chain not in the withdrawal management list",
        20038 => "withdrawal address not whitelisted",
        20039 => "cannot cancel in the current status",
        20040 => "withdrawing too often",
        20041 => "daily withdrawal quota exceeded",
        20042 => "pair does not support API trading",
        _ => "system error",
    }
}

/// `spot` or `margin`, the `{market}` path segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Spot.
    Spot,
    /// Margin.
    Margin,
}

impl Kind {
    /// `spot` or `margin`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Spot => "spot",
            Kind::Margin => "margin",
        }
    }
}

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

    /// An optional integer (10004 when not an integer).
    pub fn int(&self, k: &str) -> Result<Option<i64>, SpotErr> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse::<i64>()
                .map(Some)
                .map_err(|_| err_msg(10004, format!("{k} must be an integer"))),
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

    /// A required decimal (10004 when absent or not in the [`crate::num::parse_dec`] grammar).
    pub fn dec(&self, k: &str) -> Result<Decimal, SpotErr> {
        crate::num::parse_dec(self.req(k)?)
            .ok_or_else(|| err_msg(10004, format!("{k} must be a number")))
    }
}

/// Per-request context given to handlers.
pub struct Ctx<'a> {
    /// Shared server pieces (config, clock).
    pub shared: &'a Shared,
    /// Locked state.
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

/// Every spot/margin endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Ep {
    Ping,
    Time,
    Markets,
    Ticker,
    OrderBook,
    Trades,
    Kline,
    SpotSymbols,
    MarginCurrencies,
    MarginSymbols,
    TradesSymbols,
    Currencies,
    SpotAssets,
    MarginAssets,
    FinanceLog,
    Order,
    OrderDetail,
    OrderCurrent,
    OrderHistory,
    MyTrades,
    MarginPositions,
    DepositAddress,
    DepositHistory,
    WithdrawHistory,
    OrderNew,
    BatchNew,
    Cancel,
    Transfer,
    PositionClose,
    WithdrawNew,
    WithdrawCancel,
}

impl Ep {
    /// Method, required permission (`None`: public) and success code.
    pub fn meta(self) -> (Method, Option<Permission>, i64) {
        use Ep::*;
        match self {
            Ping | Time | Markets | Ticker | OrderBook | Trades | Kline | SpotSymbols
            | MarginCurrencies | MarginSymbols | TradesSymbols => (Method::GET, None, 0),
            Currencies => (Method::GET, None, 200),
            SpotAssets | MarginAssets | FinanceLog | Order | OrderDetail | OrderCurrent
            | OrderHistory | MyTrades | MarginPositions => (Method::GET, Some(Permission::Read), 0),
            DepositAddress | DepositHistory | WithdrawHistory => {
                (Method::GET, Some(Permission::Read), 200)
            }
            OrderNew | BatchNew | Cancel | Transfer | PositionClose => {
                (Method::POST, Some(Permission::Trade), 0)
            }
            WithdrawNew | WithdrawCancel => (Method::POST, Some(Permission::Withdraw), 200),
        }
    }

    /// Whether the path carries a `{market}` segment (`/spot/...` or `/margin/...` chosen by
    /// the caller), so that a `market` request parameter must agree with it.
    pub fn has_market_segment(self) -> bool {
        use Ep::*;
        matches!(
            self,
            FinanceLog
                | Order
                | OrderDetail
                | OrderCurrent
                | OrderHistory
                | MyTrades
                | OrderNew
                | BatchNew
                | Cancel
        )
    }
}

/// Checks the `market` request parameter of a `{market}` endpoint against the path's `{market}`:
/// absent or equal ignoring ASCII case is fine; anything else is 10004 naming the conflict.
pub fn check_market_param(p: &Params, kind: Kind) -> Result<(), SpotErr> {
    match p.get("market") {
        None => Ok(()),
        Some(v) if v.eq_ignore_ascii_case(kind.name()) => Ok(()),
        Some(v) => {
            let shown: String = v.chars().take(32).collect();
            Err(err_msg(
                10004,
                format!(
                    "market parameter {shown:?} conflicts with the path's market {:?}",
                    kind.name()
                ),
            ))
        }
    }
}

/// A pair as the venue writes it in symbol lists and records: upper case (`BTC_USDT`).
pub fn pair_upper(symbol: &str) -> String {
    symbol.to_ascii_uppercase()
}

/// Resolves a path after `/v3` to an endpoint, its `{market}` and an optional path argument.
pub fn resolve(path: &str) -> Option<(Ep, Kind, Option<String>)> {
    use Ep::*;
    let simple = match path {
        "/ping" => Some(Ping),
        "/time" => Some(Time),
        "/markets" => Some(Markets),
        "/ticker" => Some(Ticker),
        "/order_book" => Some(OrderBook),
        "/trades" => Some(Trades),
        "/kline" => Some(Kline),
        "/spot/symbols" => Some(SpotSymbols),
        "/margin/currencies" => Some(MarginCurrencies),
        "/margin/symbols" => Some(MarginSymbols),
        "/trades/symbols" => Some(TradesSymbols),
        "/currencies" => Some(Currencies),
        "/spot/assets" => Some(SpotAssets),
        "/margin/assets" => Some(MarginAssets),
        "/margin/positions" => Some(MarginPositions),
        "/margin/position/close" => Some(PositionClose),
        "/deposit/address" => Some(DepositAddress),
        "/deposit/history" => Some(DepositHistory),
        "/withdraw/history" => Some(WithdrawHistory),
        "/withdraw/new" => Some(WithdrawNew),
        "/withdraw/cancel" => Some(WithdrawCancel),
        "/transfer" => Some(Transfer),
        _ => None,
    };
    if let Some(ep) = simple {
        let kind = if path.starts_with("/margin/") {
            Kind::Margin
        } else {
            Kind::Spot
        };
        return Some((ep, kind, None));
    }
    if let Some(id) = path.strip_prefix("/withdraw/cancel/") {
        if !id.is_empty() && !id.contains('/') {
            return Some((WithdrawCancel, Kind::Spot, Some(id.to_owned())));
        }
    }
    let (kind, rest) = if let Some(r) = path.strip_prefix("/spot/") {
        (Kind::Spot, r)
    } else if let Some(r) = path.strip_prefix("/margin/") {
        (Kind::Margin, r)
    } else {
        return None;
    };
    let ep = match rest {
        "financelog" => FinanceLog,
        "order" => Order,
        "order/detail" => OrderDetail,
        "order/current" => OrderCurrent,
        "order/history" => OrderHistory,
        "mytrades" => MyTrades,
        "order/new" => OrderNew,
        "order/batch_new" => BatchNew,
        "order/cancel" => Cancel,
        _ => return None,
    };
    Some((ep, kind, None))
}

/// Handles a request under `/v3`.
pub fn handle(shared: &Shared, req: &SimRequest) -> SimResponse {
    let sub = req.path.strip_prefix("/v3").unwrap_or("");
    let Some((ep, kind, path_arg)) = resolve(sub) else {
        return SimResponse::json(404, &error_body(10009, message(10009)));
    };
    let (method, perm, _) = ep.meta();
    if req.method != method {
        return SimResponse::json(405, &error_body(10001, message(10001)));
    }
    let now_ms = shared.clock.now_ms();
    let mut guard = shared.state();
    let st: &mut State = &mut guard;

    // Request weight: per IP always; per key and user when the key is known.
    if shared.config.limits.weight_enabled {
        let mut subjects = vec![Subject::Ip(req.peer)];
        if perm.is_some() {
            if let Some(k) = req.header("ACCESS-KEY").and_then(|k| st.keys.get(k)) {
                subjects.push(Subject::Key(k.key.clone()));
                subjects.push(Subject::User(k.account));
            }
        }
        if let Err(l) = st.spot_limiter.check(&subjects, weight(ep), now_ms) {
            let secs = (l.retry_after_ms + 999) / 1000;
            return SimResponse::json(429, &error_body(10005, message(10005)))
                .with_header("retry-after", secs.max(1).to_string());
        }
    }

    let body_text = req.body_text();
    let user = match perm {
        None => 0,
        Some(p) => match auth::authenticate(st, req, &body_text, p, now_ms) {
            Ok(u) => u,
            Err(e) => return SimResponse::ok(&error_body(e.code, &e.msg)),
        },
    };
    let mut ctx = Ctx {
        shared,
        st,
        now_ms,
        p: Params::parse(&req.query, &body_text),
        user,
        kind,
        path_arg,
    };
    if ep.has_market_segment() {
        if let Err(e) = check_market_param(&ctx.p, kind) {
            return SimResponse::ok(&error_body(e.code, &e.msg));
        }
    }
    let result = dispatch(ep, &mut ctx);
    match result {
        Ok(j) => SimResponse::ok(&j),
        Err(e) => SimResponse::ok(&error_body(e.code, &e.msg)),
    }
}

/// Weight of an endpoint (1 for all; the spec does not list weights).
pub fn weight(_ep: Ep) -> u32 {
    1
}

fn dispatch(ep: Ep, c: &mut Ctx<'_>) -> R {
    use Ep::*;
    match ep {
        Ping => Ok(J::obj().with("msg", "pong").with("code", 0)),
        Time => Ok(J::obj().with("server_time", c.now_s()).with("code", 0)),
        Markets => market::markets(c),
        Ticker => market::ticker(c),
        OrderBook => market::order_book(c),
        Trades => market::trades(c),
        Kline => market::kline(c),
        SpotSymbols => market::symbols(c, market::SymbolList::Spot),
        MarginSymbols => market::symbols(c, market::SymbolList::Margin),
        TradesSymbols => market::symbols(c, market::SymbolList::Api),
        MarginCurrencies => market::margin_currencies(c),
        Currencies => wallet::currencies(c),
        SpotAssets => account::spot_assets(c),
        MarginAssets => account::margin_assets(c),
        FinanceLog => account::finance_log(c),
        MarginPositions => account::margin_positions(c),
        Transfer => account::transfer(c),
        PositionClose => account::position_close(c),
        Order => orders::query(c),
        OrderDetail => orders::detail(c),
        OrderCurrent => orders::current(c),
        OrderHistory => orders::history(c),
        MyTrades => orders::my_trades(c),
        OrderNew => orders::new_order(c),
        BatchNew => orders::batch_new(c),
        Cancel => orders::cancel(c),
        DepositAddress => wallet::deposit_address(c),
        DepositHistory => wallet::deposit_history(c),
        WithdrawHistory => wallet::withdraw_history(c),
        WithdrawNew => wallet::withdraw_new(c),
        WithdrawCancel => wallet::withdraw_cancel(c),
    }
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
pub fn known_currency(shared: &Shared, c: &str) -> Option<String> {
    let up = c.trim().to_ascii_uppercase();
    let known = shared
        .config
        .markets
        .iter()
        .any(|m| m.base == up || m.quote == up)
        || shared.config.currencies.iter().any(|x| x.currency == up);
    known.then_some(up)
}
