//! The control API over HTTP, under `/__sim/`. Requests and answers are JSON; decimals are
//! accepted as strings or numbers and answered as strings. Errors answer HTTP 400 (bad input),
//! 404 (unknown route or record) or 409 (refused transition or ban) with `{"error":"..."}`.
//!
//! Every value is checked before anything changes: a refused request changes nothing. Out of
//! range, answered 400 with a message naming the field: a clock change that would move the
//! simulator time out of 1970-01-01..=9999-12-31 ([`crate::clock::MIN_MS`]..=
//! [`crate::clock::MAX_MS`]); a `credit` `amount` or `balances` `free` that would leave the
//! free balance below zero or the balance above [`super::MAX_CONTROL_AMOUNT`] (10^15); a
//! deposit `amount` above it; a `mark_price` / `index_price` above 10^12 (neither is set then).
//!
//! The routes are the rows of [`ROUTES`], one small handler each; a known path with another
//! method answers 404 like an unknown path.
//!
//! | Method and path | Body / query | Answer |
//! |---|---|---|
//! | GET `/__sim/health` | | `ok`, `spot_base_url`, `swap_base_url`, `now_ms` |
//! | POST `/__sim/accounts` | | `account` |
//! | POST `/__sim/keys` | `account`, `read`, `trade`, `withdraw` (bools, default read+trade), `ip_whitelist` (list), `expires_at_ms` | `key`, `secret` |
//! | DELETE `/__sim/keys/{key}` | | `removed` |
//! | POST `/__sim/balances` | `account`, `account_type` (spot, margin, otc, swap), `currency`, `free` | `ok` |
//! | POST `/__sim/credit` | `account`, `account_type`, `currency`, `amount` (signed) | `ok` |
//! | GET `/__sim/balances?account=N` | | `balances`: list of `account_type`, `currency`, `free`, `frozen` |
//! | POST `/__sim/whitelist` | `account`, `currency`, `chain`, `address`, `memo` | `ok` |
//! | POST `/__sim/deposits` | `account`, `currency`, `chain`, `amount`, `state` (default 3) | `id` |
//! | POST `/__sim/deposits/state` | `id`, `state` | `ok` |
//! | POST `/__sim/withdrawals/state` | `id`, `state` | `ok` |
//! | GET `/__sim/withdrawals?account=N` | | `withdrawals` |
//! | GET `/__sim/clock` | | `now_ms`, `offset_ms`, `frozen`, `speed` |
//! | POST `/__sim/clock` | one of `advance_ms`, `offset_ms`, `freeze_at_ms`, `freeze` (true), `unfreeze` (true), `speed` (simulator ms per wall ms, 0..=10000) | as GET |
//! | GET `/__sim/faults` | | `faults`: list of `id` + rule |
//! | POST `/__sim/faults` | a [`FaultRule`]: `method`, `path`, `fault` {`kind`, ...}, `count` | `id` |
//! | DELETE `/__sim/faults` (or POST `/__sim/faults/clear`) | | `ok` (all removed) |
//! | DELETE `/__sim/faults/{id}` | | `removed` |
//! | GET `/__sim/orders?account=N` | | `orders`, `count`, `open` |
//! | POST `/__sim/limits/reset` | | `ok` |
//! | POST `/__sim/demo` | | the simulator's demo account (the same on every call): `account`, `key`, `secret`, `spot_base_url`, `swap_base_url` |
//! | POST `/__sim/demo/new` | | a new funded account, as the demo account is funded: the same fields |
//! | POST `/__sim/swap/prices` | `instrument_id`, `mark_price` and/or `index_price` (decimal; `null` returns to the default) | `ok` |
//! | POST `/__sim/swap/funding_rate` | `instrument_id`, `rate` (applied at the next funding time) | `ok` |
//! | GET `/__sim/swap/funding` | | `next_funding_time`, `now_ms` |
//! | POST `/__sim/swap/funding/advance` | | `funding_time` (clock moved there, funding settled), `now_ms` |
//! | POST `/__sim/swap/trading` | `instrument_id`, `is_trading` (bool) | `ok` |
//! | GET `/__sim/swap/orders?account=N` | | `orders` (`order_id`, `instrument_id`, `type`, `order_type`, `price`, `size`, `filled`, `state`, `margin_mode`, `copy`, `created_ms`), `count`, `open` |
//! | GET `/__sim/swap/positions?account=N` | | `positions` (`instrument_id`, `side`, `margin_mode`, `size`, `avg_cost`, `margin`, `leverage`) |
//! | GET `/__sim/ws` | | `connections` (open websockets), `accepted` (upgrades so far), `spot_ws_url`, `swap_ws_url` |
//! | POST `/__sim/ws/faults` | `kind` (`drop_deltas`, `duplicate_private`, `reorder_private`, `plain_text`, `handshake_502`), `count` (default 1) | `ok` |
//! | POST `/__sim/ws/disconnect` | | `ok` (every websocket dropped, no close frame) |
//! | GET `/__sim/flow` | | `paused`, `events` (order flow events so far) |
//! | POST `/__sim/flow` | `paused` (bool) | as GET |

use super::desk::Desk;
use super::{ControlError, DemoAccount, KeyOptions};
use crate::dialect::route::{find, Auth, Match, Route};
use crate::dialect::wire::{parse_form, SimRequest, SimResponse};
use crate::engine::accounts::{AccountType, Permissions, WhitelistEntry};
use crate::faults::FaultRule;
use crate::json::{fmt_dec, J};
use crate::num::parse_dec;
use http::Method;
use rust_decimal::Decimal;
use serde_json::Value;
use std::net::IpAddr;

fn bad(msg: impl Into<String>) -> SimResponse {
    SimResponse::json(400, &J::obj().with("error", msg.into()))
}

fn not_found(msg: impl Into<String>) -> SimResponse {
    SimResponse::json(404, &J::obj().with("error", msg.into()))
}

fn control_err(e: ControlError) -> SimResponse {
    let status = match e {
        ControlError::UnknownAccount(_) | ControlError::NotFound(..) => 404,
        ControlError::InvalidTransition | ControlError::ApiTradingBanned => 409,
        _ => 400,
    };
    SimResponse::json(status, &J::obj().with("error", e.to_string()))
}

/// A refused value: 400 naming the field (`ControlError::Invalid`), else as [`control_err`].
fn field_err(field: &str, e: ControlError) -> SimResponse {
    match e {
        ControlError::Invalid(msg) => bad(format!("{field} out of range: {msg}")),
        other => control_err(other),
    }
}

fn ok() -> SimResponse {
    SimResponse::ok(&J::obj().with("ok", true))
}

struct Body(Value);

impl Body {
    fn u64(&self, k: &str) -> Result<u64, SimResponse> {
        match self.0.get(k) {
            Some(Value::Number(n)) => n.as_u64(),
            Some(Value::String(s)) => s.trim().parse().ok(),
            _ => None,
        }
        .ok_or_else(|| bad(format!("{k} must be a non-negative integer")))
    }
    fn i64_opt(&self, k: &str) -> Result<Option<i64>, SimResponse> {
        match self.0.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .map(Some)
                .ok_or_else(|| bad(format!("{k} must be an integer"))),
            Some(Value::String(s)) => s
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| bad(format!("{k} must be an integer"))),
            _ => Err(bad(format!("{k} must be an integer"))),
        }
    }
    fn str(&self, k: &str) -> Result<String, SimResponse> {
        self.str_or(k, None)
    }
    fn str_or(&self, k: &str, default: Option<&str>) -> Result<String, SimResponse> {
        match self.0.get(k) {
            Some(Value::String(s)) => Ok(s.clone()),
            None | Some(Value::Null) => default
                .map(str::to_owned)
                .ok_or_else(|| bad(format!("missing {k}"))),
            _ => Err(bad(format!("{k} must be a string"))),
        }
    }
    fn dec(&self, k: &str) -> Result<Decimal, SimResponse> {
        match self.0.get(k) {
            Some(Value::String(s)) => parse_dec(s),
            Some(Value::Number(n)) => parse_dec(&n.to_string()),
            _ => None,
        }
        .ok_or_else(|| bad(format!("{k} must be a decimal (string or number)")))
    }
    fn bool_or(&self, k: &str, default: bool) -> Result<bool, SimResponse> {
        match self.0.get(k) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            _ => Err(bad(format!("{k} must be a boolean"))),
        }
    }
    fn account_type(&self) -> Result<AccountType, SimResponse> {
        AccountType::parse(&self.str_or("account_type", Some("spot"))?)
            .ok_or_else(|| bad("account_type must be spot, margin, otc or swap"))
    }
}

fn query_u64(req: &SimRequest, k: &str) -> Result<u64, SimResponse> {
    parse_form(&req.query)
        .into_iter()
        .find(|(key, _)| key == k)
        .and_then(|(_, v)| v.trim().parse().ok())
        .ok_or_else(|| {
            bad(format!(
                "query parameter {k} must be a non-negative integer"
            ))
        })
}

/// A control answer: the response, or an error response (both are sent as they are).
pub type Answer = Result<SimResponse, SimResponse>;

/// A control handler.
pub type Handler = fn(Call<'_, '_>) -> Answer;

/// One control request as its handler sees it.
pub struct Call<'a, 'd> {
    /// The exchange's parts.
    c: &'a mut Desk<'d>,
    /// The request.
    req: &'a SimRequest,
    /// The JSON body (`{}` when empty).
    body: Body,
    /// The value of the route's `{...*}` placeholder, if any.
    arg: Option<&'a str>,
}

const fn r(method: Method, path: &'static str, handler: Handler) -> Route<Handler> {
    Route {
        method,
        path,
        weight: 0,
        auth: Auth::Public,
        handler,
    }
}

/// The control route table (unweighted and unauthenticated; see the module doc's table).
#[rustfmt::skip]
pub const ROUTES: &[Route<Handler>] = &[
    r(Method::GET,    "/__sim",                      health),
    r(Method::GET,    "/__sim/health",               health),
    r(Method::POST,   "/__sim/accounts",             create_account),
    r(Method::POST,   "/__sim/keys",                 create_key),
    r(Method::DELETE, "/__sim/keys/{key*}",          revoke_key),
    r(Method::POST,   "/__sim/balances",             set_balance),
    r(Method::POST,   "/__sim/credit",               credit),
    r(Method::GET,    "/__sim/balances",             balances),
    r(Method::POST,   "/__sim/whitelist",            whitelist),
    r(Method::POST,   "/__sim/deposits",             deposit),
    r(Method::POST,   "/__sim/deposits/state",       deposit_state),
    r(Method::POST,   "/__sim/withdrawals/state",    withdrawal_state),
    r(Method::GET,    "/__sim/withdrawals",          withdrawals),
    r(Method::GET,    "/__sim/clock",                clock),
    r(Method::POST,   "/__sim/clock",                set_clock),
    r(Method::GET,    "/__sim/faults",               faults),
    r(Method::POST,   "/__sim/faults",               add_fault),
    r(Method::DELETE, "/__sim/faults",               clear_faults),
    r(Method::POST,   "/__sim/faults/clear",         clear_faults),
    r(Method::DELETE, "/__sim/faults/{id*}",         remove_fault),
    r(Method::GET,    "/__sim/orders",               orders),
    r(Method::POST,   "/__sim/limits/reset",         reset_limits),
    r(Method::POST,   "/__sim/demo",                 demo),
    r(Method::POST,   "/__sim/demo/new",             new_demo),
    r(Method::POST,   "/__sim/swap/prices",          swap_prices),
    r(Method::POST,   "/__sim/swap/funding_rate",    funding_rate),
    r(Method::GET,    "/__sim/swap/funding",         funding),
    r(Method::POST,   "/__sim/swap/funding/advance", advance_funding),
    r(Method::POST,   "/__sim/swap/trading",         swap_trading),
    r(Method::GET,    "/__sim/swap/orders",          swap_orders),
    r(Method::GET,    "/__sim/swap/positions",       swap_positions),
    r(Method::GET,    "/__sim/ws",                   ws_status),
    r(Method::POST,   "/__sim/ws/faults",            ws_fault),
    r(Method::POST,   "/__sim/ws/disconnect",        ws_disconnect),
    r(Method::GET,    "/__sim/flow",                 flow),
    r(Method::POST,   "/__sim/flow",                 set_flow),
];

/// Handles a request under `/__sim`: the body is read first (400 when it is not JSON), then
/// the route (404 when unknown, or known for another method).
pub(crate) fn handle(desk: &mut Desk<'_>, req: &SimRequest) -> SimResponse {
    match run(desk, req) {
        Ok(r) | Err(r) => r,
    }
}

fn run(desk: &mut Desk<'_>, req: &SimRequest) -> Answer {
    let body = if req.body.is_empty() {
        Body(Value::Object(Default::default()))
    } else {
        Body(serde_json::from_slice(&req.body).map_err(|e| bad(format!("body is not JSON: {e}")))?)
    };
    let path = req.path.trim_end_matches('/');
    let Match::Found(route, caps) = find(ROUTES, &req.method, path) else {
        return Err(not_found(format!(
            "unknown control route {} {}",
            req.method, req.path
        )));
    };
    let arg = caps.get("key").or_else(|| caps.get("id"));
    (route.handler)(Call {
        c: desk,
        req,
        body,
        arg,
    })
}

fn spot_url(c: &mut Desk<'_>) -> String {
    format!("http://{}/v3", c.addr())
}

fn swap_url(c: &mut Desk<'_>) -> String {
    format!("http://{}", c.addr())
}

fn clock_json(c: &mut Desk<'_>) -> SimResponse {
    SimResponse::ok(
        &J::obj()
            .with("now_ms", c.now_ms())
            .with("offset_ms", c.clock_offset())
            .with("frozen", c.clock_frozen())
            .with("speed", J::dec_str(c.clock_speed())),
    )
}

/// A JSON list answer `{name: rows}`.
fn list<T>(name: &'static str, rows: Vec<T>, row: impl Fn(T) -> J) -> SimResponse {
    let rows: Vec<J> = rows.into_iter().map(row).collect();
    SimResponse::ok(&J::obj().with(name, rows))
}

/// GET `/__sim` and `/__sim/health`.
fn health(call: Call<'_, '_>) -> Answer {
    let c = call.c;
    Ok(SimResponse::ok(
        &J::obj()
            .with("ok", true)
            .with("spot_base_url", spot_url(c))
            .with("swap_base_url", swap_url(c))
            .with("spot_ws_url", format!("ws://{}/ws/v1/", c.addr()))
            .with("swap_ws_url", format!("ws://{}/swap_ws/v2/", c.addr()))
            .with("now_ms", c.now_ms()),
    ))
}

/// GET `/__sim/ws`.
fn ws_status(call: Call<'_, '_>) -> Answer {
    let c = call.c;
    Ok(SimResponse::ok(
        &J::obj()
            .with("connections", c.ws_connections())
            .with("accepted", c.ws_accepted())
            .with("spot_ws_url", format!("ws://{}/ws/v1/", c.addr()))
            .with("swap_ws_url", format!("ws://{}/swap_ws/v2/", c.addr())),
    ))
}

/// POST `/__sim/ws/faults`.
fn ws_fault(call: Call<'_, '_>) -> Answer {
    let kind = call.body.str("kind")?;
    let fault = crate::dialect::ws::WsFault::parse(&kind).ok_or_else(|| {
        bad("kind must be drop_deltas, duplicate_private, reorder_private, plain_text or handshake_502")
    })?;
    let count = match call.body.0.get("count") {
        None | Some(Value::Null) => 1,
        _ => u32::try_from(call.body.u64("count")?)
            .map_err(|_| bad("count must be at most 4294967295"))?,
    };
    call.c.ws_fault(fault, count);
    Ok(ok())
}

/// POST `/__sim/ws/disconnect`.
fn ws_disconnect(call: Call<'_, '_>) -> Answer {
    call.c.ws_disconnect_all();
    Ok(ok())
}

/// GET `/__sim/flow`.
fn flow(call: Call<'_, '_>) -> Answer {
    Ok(SimResponse::ok(
        &J::obj()
            .with("paused", call.c.flow_paused())
            .with("events", call.c.flow_events()),
    ))
}

/// POST `/__sim/flow`.
fn set_flow(call: Call<'_, '_>) -> Answer {
    let paused = match call.body.0.get("paused") {
        Some(Value::Bool(b)) => *b,
        _ => return Err(bad("paused must be a boolean")),
    };
    call.c.pause_flow(paused);
    flow(call)
}

/// POST `/__sim/accounts`.
fn create_account(call: Call<'_, '_>) -> Answer {
    Ok(SimResponse::ok(
        &J::obj().with("account", call.c.create_account()),
    ))
}

/// The `ip_whitelist` list of a key (empty when absent).
fn ip_whitelist(body: &Body) -> Result<Vec<IpAddr>, SimResponse> {
    let Some(list) = body.0.get("ip_whitelist") else {
        return Ok(Vec::new());
    };
    let Some(list) = list.as_array() else {
        return Err(bad("ip_whitelist must be a list"));
    };
    list.iter()
        .map(|ip| {
            ip.as_str()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| bad("ip_whitelist entries must be IP addresses"))
        })
        .collect()
}

/// POST `/__sim/keys`.
fn create_key(call: Call<'_, '_>) -> Answer {
    let body = &call.body;
    let account = body.u64("account")?;
    let ip_whitelist = ip_whitelist(body)?;
    let opts = KeyOptions {
        permissions: Permissions {
            read: body.bool_or("read", true)?,
            trade: body.bool_or("trade", true)?,
            withdraw: body.bool_or("withdraw", false)?,
        },
        ip_whitelist,
        expires_at_ms: body.i64_opt("expires_at_ms")?,
    };
    let pair = call.c.create_api_key(account, opts).map_err(control_err)?;
    Ok(SimResponse::ok(
        &J::obj().with("key", pair.key).with("secret", pair.secret),
    ))
}

/// DELETE `/__sim/keys/{key}`.
fn revoke_key(call: Call<'_, '_>) -> Answer {
    let removed = call.c.revoke_api_key(call.arg.unwrap_or_default());
    Ok(SimResponse::ok(&J::obj().with("removed", removed)))
}

/// POST `/__sim/balances`.
fn set_balance(call: Call<'_, '_>) -> Answer {
    let body = &call.body;
    let at = body.account_type()?;
    call.c
        .set_balance(
            body.u64("account")?,
            at,
            &body.str("currency")?,
            body.dec("free")?,
        )
        .map_err(|e| field_err("free", e))?;
    Ok(ok())
}

/// POST `/__sim/credit`.
fn credit(call: Call<'_, '_>) -> Answer {
    let body = &call.body;
    let at = body.account_type()?;
    call.c
        .credit(
            body.u64("account")?,
            at,
            &body.str("currency")?,
            body.dec("amount")?,
        )
        .map_err(|e| field_err("amount", e))?;
    Ok(ok())
}

/// GET `/__sim/balances?account=N`.
fn balances(call: Call<'_, '_>) -> Answer {
    let rows = call
        .c
        .balances(query_u64(call.req, "account")?)
        .map_err(control_err)?;
    Ok(list("balances", rows, |b| {
        J::obj()
            .with("account_type", b.account_type.name())
            .with("currency", b.currency)
            .with("free", fmt_dec(b.balance.free))
            .with("frozen", fmt_dec(b.balance.frozen))
    }))
}

/// POST `/__sim/whitelist`.
fn whitelist(call: Call<'_, '_>) -> Answer {
    let body = &call.body;
    let account = body.u64("account")?;
    let entry = WhitelistEntry {
        currency: body.str("currency")?,
        chain: body.str_or("chain", Some(""))?,
        address: body.str("address")?,
        memo: body.str_or("memo", Some(""))?,
    };
    call.c
        .whitelist_address(account, entry)
        .map_err(control_err)?;
    Ok(ok())
}

/// POST `/__sim/deposits`.
fn deposit(call: Call<'_, '_>) -> Answer {
    let body = &call.body;
    let state = body.i64_opt("state")?.unwrap_or(3);
    let state = u8::try_from(state).map_err(|_| bad("state must be 1-4"))?;
    let id = call
        .c
        .credit_deposit(
            body.u64("account")?,
            &body.str("currency")?,
            &body.str_or("chain", Some(""))?,
            body.dec("amount")?,
            state,
        )
        .map_err(|e| field_err("amount", e))?;
    Ok(SimResponse::ok(&J::obj().with("id", id)))
}

/// The `id` and `state` of a state change.
fn id_and_state(body: &Body) -> Result<(u64, u8), SimResponse> {
    let id = body.u64("id")?;
    let state = u8::try_from(body.u64("state")?).map_err(|_| bad("state must be 1-4"))?;
    Ok((id, state))
}

/// POST `/__sim/deposits/state`.
fn deposit_state(call: Call<'_, '_>) -> Answer {
    let (id, state) = id_and_state(&call.body)?;
    call.c.set_deposit_state(id, state).map_err(control_err)?;
    Ok(ok())
}

/// POST `/__sim/withdrawals/state`.
fn withdrawal_state(call: Call<'_, '_>) -> Answer {
    let (id, state) = id_and_state(&call.body)?;
    call.c
        .set_withdrawal_state(id, state)
        .map_err(control_err)?;
    Ok(ok())
}

/// GET `/__sim/withdrawals?account=N`.
fn withdrawals(call: Call<'_, '_>) -> Answer {
    let rows = call.c.withdrawals(query_u64(call.req, "account")?);
    Ok(list("withdrawals", rows, |w| {
        J::obj()
            .with("id", w.id)
            .with("currency", w.currency)
            .with("chain", w.chain)
            .with("amount", fmt_dec(w.amount))
            .with("fee", fmt_dec(w.fee))
            .with("address", w.address)
            .with("state", u32::from(w.state))
    }))
}

/// GET `/__sim/clock`.
fn clock(call: Call<'_, '_>) -> Answer {
    Ok(clock_json(call.c))
}

/// POST `/__sim/clock`: one change, checked in full before it is made (the `try_` forms refuse
/// and change nothing when the time would leave the clock's range).
fn set_clock(call: Call<'_, '_>) -> Answer {
    let (c, body) = (call.c, &call.body);
    if let Some(ms) = body.i64_opt("advance_ms")? {
        c.try_advance_clock(ms)
            .map_err(|e| field_err("advance_ms", e))?;
    } else if let Some(ms) = body.i64_opt("offset_ms")? {
        c.try_set_clock_offset(ms)
            .map_err(|e| field_err("offset_ms", e))?;
    } else if let Some(ms) = body.i64_opt("freeze_at_ms")? {
        c.try_freeze_clock(Some(ms))
            .map_err(|e| field_err("freeze_at_ms", e))?;
    } else if body.bool_or("freeze", false)? {
        c.try_freeze_clock(None)
            .map_err(|e| field_err("freeze", e))?;
    } else if body.bool_or("unfreeze", false)? {
        c.unfreeze_clock();
    } else if body.0.get("speed").is_some() {
        c.set_clock_speed(body.dec("speed")?)
            .ok_or_else(|| bad("speed must be within 0..=10000"))?;
    } else {
        return Err(bad(
            "give advance_ms, offset_ms, freeze_at_ms, freeze, unfreeze or speed",
        ));
    }
    Ok(clock_json(c))
}

/// GET `/__sim/faults`.
fn faults(call: Call<'_, '_>) -> Answer {
    Ok(list("faults", call.c.faults(), |(id, rule)| {
        let v = serde_json::to_value(&rule).unwrap_or(Value::Null);
        J::obj()
            .with("id", id)
            .with("rule", crate::json::from_value(&v))
    }))
}

/// POST `/__sim/faults`.
fn add_fault(call: Call<'_, '_>) -> Answer {
    let rule: FaultRule =
        serde_json::from_value(call.body.0).map_err(|e| bad(format!("invalid fault rule: {e}")))?;
    Ok(SimResponse::ok(
        &J::obj().with("id", call.c.add_fault(rule)),
    ))
}

/// DELETE `/__sim/faults` and POST `/__sim/faults/clear`.
fn clear_faults(call: Call<'_, '_>) -> Answer {
    call.c.clear_faults();
    Ok(ok())
}

/// DELETE `/__sim/faults/{id}`.
fn remove_fault(call: Call<'_, '_>) -> Answer {
    let id: u64 = call
        .arg
        .unwrap_or_default()
        .parse()
        .map_err(|_| bad("fault id must be an integer"))?;
    Ok(SimResponse::ok(
        &J::obj().with("removed", call.c.remove_fault(id)),
    ))
}

/// `{"orders": rows, "count": all, "open": open}`.
fn order_list(rows: Vec<J>, open: usize) -> SimResponse {
    let count = rows.len();
    SimResponse::ok(
        &J::obj()
            .with("orders", rows)
            .with("count", count)
            .with("open", open),
    )
}

/// GET `/__sim/orders?account=N`.
fn orders(call: Call<'_, '_>) -> Answer {
    let orders = call.c.orders(query_u64(call.req, "account")?);
    let open = orders.iter().filter(|o| o.status <= 1).count();
    let rows = orders
        .into_iter()
        .map(|o| {
            J::obj()
                .with("order_id", o.order_id)
                .with("symbol", o.symbol)
                .with("kind", o.kind)
                .with("type", o.order_type)
                .with("price", fmt_dec(o.price))
                .with("amount", fmt_dec(o.amount))
                .with("cash_amount", fmt_dec(o.cash_amount))
                .with("executed_amount", fmt_dec(o.executed_amount))
                .with("status", u32::from(o.status))
                .with("created_ms", o.created_ms)
        })
        .collect();
    Ok(order_list(rows, open))
}

/// POST `/__sim/limits/reset`.
fn reset_limits(call: Call<'_, '_>) -> Answer {
    call.c.reset_limits();
    Ok(ok())
}

/// POST `/__sim/demo`.
fn demo(call: Call<'_, '_>) -> Answer {
    let c = call.c;
    let d = c.demo_account();
    demo_answer(c, d)
}

/// POST `/__sim/demo/new`.
fn new_demo(call: Call<'_, '_>) -> Answer {
    let c = call.c;
    let d = c.funded_account();
    demo_answer(c, d)
}

fn demo_answer(c: &mut Desk<'_>, d: DemoAccount) -> Answer {
    Ok(SimResponse::ok(
        &J::obj()
            .with("account", d.account)
            .with("key", d.keys.key)
            .with("secret", d.keys.secret)
            .with("spot_base_url", spot_url(c))
            .with("swap_base_url", swap_url(c)),
    ))
}

/// The price changes of POST `/__sim/swap/prices`, all checked: `(index?, price)` for
/// `mark_price` and `index_price` when given (`null`: back to the default).
fn price_changes(body: &Body) -> Result<Vec<(bool, Option<Decimal>)>, SimResponse> {
    let mut changes = Vec::new();
    for (k, index) in [("mark_price", false), ("index_price", true)] {
        let price = match body.0.get(k) {
            None => continue,
            Some(Value::Null) => None,
            Some(_) => Some(body.dec(k)?),
        };
        if price.is_some_and(|p| p <= Decimal::ZERO || p > super::MAX_SWAP_PRICE) {
            return Err(bad(format!(
                "{k} out of range: must be positive and at most {}",
                super::MAX_SWAP_PRICE
            )));
        }
        changes.push((index, price));
    }
    if changes.is_empty() {
        return Err(bad("give mark_price and/or index_price"));
    }
    Ok(changes)
}

/// POST `/__sim/swap/prices`: all or nothing, both values are read and checked before either
/// is set.
fn swap_prices(call: Call<'_, '_>) -> Answer {
    let c = call.c;
    let id = call.body.str("instrument_id")?;
    let changes = price_changes(&call.body)?;
    if !c.has_swap_instrument(&id) {
        return Err(bad(format!("unknown instrument {id}")));
    }
    for (index, price) in changes {
        if index {
            c.set_index_price(&id, price)
        } else {
            c.set_mark_price(&id, price)
        }
        .map_err(control_err)?;
    }
    Ok(ok())
}

/// POST `/__sim/swap/funding_rate`.
fn funding_rate(call: Call<'_, '_>) -> Answer {
    let body = &call.body;
    call.c
        .set_funding_rate(&body.str("instrument_id")?, body.dec("rate")?)
        .map_err(control_err)?;
    Ok(ok())
}

/// GET `/__sim/swap/funding`.
fn funding(call: Call<'_, '_>) -> Answer {
    let c = call.c;
    Ok(SimResponse::ok(
        &J::obj()
            .with("next_funding_time", c.next_funding_time())
            .with("now_ms", c.now_ms()),
    ))
}

/// POST `/__sim/swap/funding/advance`.
fn advance_funding(call: Call<'_, '_>) -> Answer {
    let c = call.c;
    let t = c.advance_to_funding();
    Ok(SimResponse::ok(
        &J::obj().with("funding_time", t).with("now_ms", c.now_ms()),
    ))
}

/// POST `/__sim/swap/trading`.
fn swap_trading(call: Call<'_, '_>) -> Answer {
    let id = call.body.str("instrument_id")?;
    if !call
        .c
        .set_swap_trading(&id, call.body.bool_or("is_trading", true)?)
    {
        return Err(not_found(format!("unknown instrument {id}")));
    }
    Ok(ok())
}

/// GET `/__sim/swap/orders?account=N`.
fn swap_orders(call: Call<'_, '_>) -> Answer {
    let orders = call.c.swap_orders(query_u64(call.req, "account")?);
    let open = orders
        .iter()
        .filter(|o| o.state == 0 || o.state == 1)
        .count();
    let rows = orders
        .into_iter()
        .map(|o| {
            J::obj()
                .with("order_id", o.order_id)
                .with("instrument_id", o.instrument_id)
                .with("type", o.kind)
                .with("order_type", o.order_type)
                .with("price", fmt_dec(o.price))
                .with("size", fmt_dec(o.size))
                .with("filled", fmt_dec(o.filled))
                .with("state", o.state)
                .with("margin_mode", o.margin_mode)
                .with("copy", o.copy)
                .with("created_ms", o.created_ms)
        })
        .collect();
    Ok(order_list(rows, open))
}

/// GET `/__sim/swap/positions?account=N`.
fn swap_positions(call: Call<'_, '_>) -> Answer {
    let rows = call.c.swap_positions(query_u64(call.req, "account")?);
    Ok(list("positions", rows, |p| {
        J::obj()
            .with("instrument_id", p.instrument_id)
            .with("side", p.side)
            .with("margin_mode", p.margin_mode)
            .with("size", fmt_dec(p.size))
            .with("avg_cost", fmt_dec(p.avg_cost))
            .with("margin", fmt_dec(p.margin))
            .with("leverage", fmt_dec(p.leverage))
    }))
}
