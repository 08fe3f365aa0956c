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
//! | GET `/__sim/clock` | | `now_ms`, `offset_ms`, `frozen` |
//! | POST `/__sim/clock` | one of `advance_ms`, `offset_ms`, `freeze_at_ms`, `freeze` (true), `unfreeze` (true) | as GET |
//! | GET `/__sim/faults` | | `faults`: list of `id` + rule |
//! | POST `/__sim/faults` | a [`FaultRule`]: `method`, `path`, `fault` {`kind`, ...}, `count` | `id` |
//! | DELETE `/__sim/faults` | | `ok` (all removed) |
//! | DELETE `/__sim/faults/{id}` | | `removed` |
//! | GET `/__sim/orders?account=N` | | `orders`, `count`, `open` |
//! | POST `/__sim/limits/reset` | | `ok` |
//! | POST `/__sim/demo` | | `account`, `key`, `secret`, `spot_base_url`, `swap_base_url` |
//! | POST `/__sim/swap/prices` | `instrument_id`, `mark_price` and/or `index_price` (decimal; `null` returns to the default) | `ok` |
//! | POST `/__sim/swap/funding_rate` | `instrument_id`, `rate` (applied at the next funding time) | `ok` |
//! | GET `/__sim/swap/funding` | | `next_funding_time`, `now_ms` |
//! | POST `/__sim/swap/funding/advance` | | `funding_time` (clock moved there, funding settled), `now_ms` |
//! | POST `/__sim/swap/trading` | `instrument_id`, `is_trading` (bool) | `ok` |
//! | GET `/__sim/swap/orders?account=N` | | `orders` (`order_id`, `instrument_id`, `type`, `order_type`, `price`, `size`, `filled`, `state`, `margin_mode`, `copy`, `created_ms`), `count`, `open` |
//! | GET `/__sim/swap/positions?account=N` | | `positions` (`instrument_id`, `side`, `margin_mode`, `size`, `avg_cost`, `margin`, `leverage`) |

use super::{Control, ControlError, KeyOptions};
use crate::accounts::{AccountType, Permissions, WhitelistEntry};
use crate::faults::FaultRule;
use crate::json::{fmt_dec, J};
use crate::num::parse_dec;
use crate::server::Shared;
use crate::wire::{parse_form, SimRequest, SimResponse};
use http::Method;
use rust_decimal::Decimal;
use serde_json::Value;
use std::net::IpAddr;
use std::sync::Arc;

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

fn clock_json(c: &Control) -> SimResponse {
    SimResponse::ok(
        &J::obj()
            .with("now_ms", c.now_ms())
            .with("offset_ms", c.clock_offset())
            .with("frozen", c.clock_frozen()),
    )
}

/// Handles a request under `/__sim`.
pub fn handle(shared: &Arc<Shared>, req: &SimRequest) -> SimResponse {
    match run(shared, req) {
        Ok(r) | Err(r) => r,
    }
}

fn run(shared: &Arc<Shared>, req: &SimRequest) -> Result<SimResponse, SimResponse> {
    let c = Control::new(shared.clone());
    let path = req.path.trim_end_matches('/');
    let body = if req.body.is_empty() {
        Body(Value::Object(Default::default()))
    } else {
        Body(serde_json::from_slice(&req.body).map_err(|e| bad(format!("body is not JSON: {e}")))?)
    };
    let m = &req.method;
    let spot_url = format!("http://{}/v3", shared.addr);
    let swap_url = format!("http://{}", shared.addr);
    Ok(match (m.clone(), path) {
        (Method::GET, "/__sim/health") | (Method::GET, "/__sim") => SimResponse::ok(
            &J::obj()
                .with("ok", true)
                .with("spot_base_url", spot_url)
                .with("swap_base_url", swap_url)
                .with("now_ms", c.now_ms()),
        ),
        (Method::POST, "/__sim/accounts") => {
            SimResponse::ok(&J::obj().with("account", c.create_account()))
        }
        (Method::POST, "/__sim/keys") => {
            let account = body.u64("account")?;
            let mut ips = Vec::new();
            if let Some(list) = body.0.get("ip_whitelist") {
                let Some(list) = list.as_array() else {
                    return Err(bad("ip_whitelist must be a list"));
                };
                for ip in list {
                    let ip: IpAddr = ip
                        .as_str()
                        .and_then(|s| s.parse().ok())
                        .ok_or_else(|| bad("ip_whitelist entries must be IP addresses"))?;
                    ips.push(ip);
                }
            }
            let opts = KeyOptions {
                permissions: Permissions {
                    read: body.bool_or("read", true)?,
                    trade: body.bool_or("trade", true)?,
                    withdraw: body.bool_or("withdraw", false)?,
                },
                ip_whitelist: ips,
                expires_at_ms: body.i64_opt("expires_at_ms")?,
            };
            let pair = c.create_api_key(account, opts).map_err(control_err)?;
            SimResponse::ok(&J::obj().with("key", pair.key).with("secret", pair.secret))
        }
        (Method::POST, "/__sim/balances") => {
            let at = body.account_type()?;
            c.set_balance(
                body.u64("account")?,
                at,
                &body.str("currency")?,
                body.dec("free")?,
            )
            .map_err(|e| field_err("free", e))?;
            ok()
        }
        (Method::POST, "/__sim/credit") => {
            let at = body.account_type()?;
            c.credit(
                body.u64("account")?,
                at,
                &body.str("currency")?,
                body.dec("amount")?,
            )
            .map_err(|e| field_err("amount", e))?;
            ok()
        }
        (Method::GET, "/__sim/balances") => {
            let list = c
                .balances(query_u64(req, "account")?)
                .map_err(control_err)?;
            let rows: Vec<J> = list
                .into_iter()
                .map(|b| {
                    J::obj()
                        .with("account_type", b.account_type.name())
                        .with("currency", b.currency)
                        .with("free", fmt_dec(b.balance.free))
                        .with("frozen", fmt_dec(b.balance.frozen))
                })
                .collect();
            SimResponse::ok(&J::obj().with("balances", rows))
        }
        (Method::POST, "/__sim/whitelist") => {
            c.whitelist_address(
                body.u64("account")?,
                WhitelistEntry {
                    currency: body.str("currency")?,
                    chain: body.str_or("chain", Some(""))?,
                    address: body.str("address")?,
                    memo: body.str_or("memo", Some(""))?,
                },
            )
            .map_err(control_err)?;
            ok()
        }
        (Method::POST, "/__sim/deposits") => {
            let state = body.i64_opt("state")?.unwrap_or(3);
            let state = u8::try_from(state).map_err(|_| bad("state must be 1-4"))?;
            let id = c
                .credit_deposit(
                    body.u64("account")?,
                    &body.str("currency")?,
                    &body.str_or("chain", Some(""))?,
                    body.dec("amount")?,
                    state,
                )
                .map_err(|e| field_err("amount", e))?;
            SimResponse::ok(&J::obj().with("id", id))
        }
        (Method::POST, "/__sim/deposits/state") | (Method::POST, "/__sim/withdrawals/state") => {
            let id = body.u64("id")?;
            let state = u8::try_from(body.u64("state")?).map_err(|_| bad("state must be 1-4"))?;
            if path.starts_with("/__sim/deposits") {
                c.set_deposit_state(id, state)
            } else {
                c.set_withdrawal_state(id, state)
            }
            .map_err(control_err)?;
            ok()
        }
        (Method::GET, "/__sim/withdrawals") => {
            let rows: Vec<J> = c
                .withdrawals(query_u64(req, "account")?)
                .into_iter()
                .map(|w| {
                    J::obj()
                        .with("id", w.id)
                        .with("currency", w.currency)
                        .with("chain", w.chain)
                        .with("amount", fmt_dec(w.amount))
                        .with("fee", fmt_dec(w.fee))
                        .with("address", w.address)
                        .with("state", u32::from(w.state))
                })
                .collect();
            SimResponse::ok(&J::obj().with("withdrawals", rows))
        }
        (Method::GET, "/__sim/clock") => clock_json(&c),
        (Method::POST, "/__sim/clock") => {
            // Every change is checked in full before it is made (the `try_` forms refuse and
            // change nothing when the time would leave the clock's range).
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
            } else {
                return Err(bad(
                    "give advance_ms, offset_ms, freeze_at_ms, freeze or unfreeze",
                ));
            }
            clock_json(&c)
        }
        (Method::GET, "/__sim/faults") => {
            let rows: Vec<J> = c
                .faults()
                .into_iter()
                .map(|(id, rule)| {
                    let v = serde_json::to_value(&rule).unwrap_or(Value::Null);
                    J::obj()
                        .with("id", id)
                        .with("rule", crate::json::from_value(&v))
                })
                .collect();
            SimResponse::ok(&J::obj().with("faults", rows))
        }
        (Method::POST, "/__sim/faults") => {
            let rule: FaultRule = serde_json::from_value(body.0)
                .map_err(|e| bad(format!("invalid fault rule: {e}")))?;
            SimResponse::ok(&J::obj().with("id", c.add_fault(rule)))
        }
        (Method::DELETE, "/__sim/faults") | (Method::POST, "/__sim/faults/clear") => {
            c.clear_faults();
            ok()
        }
        (Method::GET, "/__sim/orders") => {
            let account = query_u64(req, "account")?;
            let orders = c.orders(account);
            let open = orders.iter().filter(|o| o.status <= 1).count();
            let count = orders.len();
            let rows: Vec<J> = orders
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
            SimResponse::ok(
                &J::obj()
                    .with("orders", rows)
                    .with("count", count)
                    .with("open", open),
            )
        }
        (Method::POST, "/__sim/limits/reset") => {
            c.reset_limits();
            ok()
        }
        (Method::POST, "/__sim/demo") => {
            let d = c.demo_account();
            SimResponse::ok(
                &J::obj()
                    .with("account", d.account)
                    .with("key", d.keys.key)
                    .with("secret", d.keys.secret)
                    .with("spot_base_url", spot_url)
                    .with("swap_base_url", swap_url),
            )
        }
        (Method::POST, "/__sim/swap/prices") => {
            // All or nothing: both values are read and checked before either is set.
            let id = body.str("instrument_id")?;
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
            ok()
        }
        (Method::POST, "/__sim/swap/funding_rate") => {
            c.set_funding_rate(&body.str("instrument_id")?, body.dec("rate")?)
                .map_err(control_err)?;
            ok()
        }
        (Method::GET, "/__sim/swap/funding") => SimResponse::ok(
            &J::obj()
                .with("next_funding_time", c.next_funding_time())
                .with("now_ms", c.now_ms()),
        ),
        (Method::POST, "/__sim/swap/funding/advance") => {
            let t = c.advance_to_funding();
            SimResponse::ok(&J::obj().with("funding_time", t).with("now_ms", c.now_ms()))
        }
        (Method::POST, "/__sim/swap/trading") => {
            let id = body.str("instrument_id")?;
            if !c.set_swap_trading(&id, body.bool_or("is_trading", true)?) {
                return Err(not_found(format!("unknown instrument {id}")));
            }
            ok()
        }
        (Method::GET, "/__sim/swap/orders") => {
            let orders = c.swap_orders(query_u64(req, "account")?);
            let open = orders
                .iter()
                .filter(|o| o.state == 0 || o.state == 1)
                .count();
            let count = orders.len();
            let rows: Vec<J> = orders
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
            SimResponse::ok(
                &J::obj()
                    .with("orders", rows)
                    .with("count", count)
                    .with("open", open),
            )
        }
        (Method::GET, "/__sim/swap/positions") => {
            let rows: Vec<J> = c
                .swap_positions(query_u64(req, "account")?)
                .into_iter()
                .map(|p| {
                    J::obj()
                        .with("instrument_id", p.instrument_id)
                        .with("side", p.side)
                        .with("margin_mode", p.margin_mode)
                        .with("size", fmt_dec(p.size))
                        .with("avg_cost", fmt_dec(p.avg_cost))
                        .with("margin", fmt_dec(p.margin))
                        .with("leverage", fmt_dec(p.leverage))
                })
                .collect();
            SimResponse::ok(&J::obj().with("positions", rows))
        }
        (Method::DELETE, p) if p.starts_with("/__sim/faults/") => {
            let id: u64 = p
                .trim_start_matches("/__sim/faults/")
                .parse()
                .map_err(|_| bad("fault id must be an integer"))?;
            SimResponse::ok(&J::obj().with("removed", c.remove_fault(id)))
        }
        (Method::DELETE, p) if p.starts_with("/__sim/keys/") => {
            let key = p.trim_start_matches("/__sim/keys/");
            SimResponse::ok(&J::obj().with("removed", c.revoke_api_key(key)))
        }
        _ => not_found(format!("unknown control route {} {}", req.method, req.path)),
    })
}
