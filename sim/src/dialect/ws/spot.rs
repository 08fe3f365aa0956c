//! The spot socket's dialect (`/ws/v1/`): JSON-RPC-like requests and replies, the public
//! channels (`trades`, `depth`, `ticker`, `all_ticker`) and the private ones (`order`,
//! `order_algo`, `balance`).

use super::{dec, diff, verify, Hub, Key, Sub, TickOut, Window};
use crate::dialect::spot::auth::{AHEAD_MS, BEHIND_MS};
use crate::engine::accounts::AccountType;
use crate::engine::changes::Changes;
use crate::engine::spot::engine::{OrdType, Order, Side};
use crate::engine::state::State;
use crate::json::{from_value, J};
use rust_decimal::Decimal;
use serde_json::Value;

/// Every spot channel.
const CHANNELS: [&str; 7] = [
    "trades",
    "depth",
    "ticker",
    "all_ticker",
    "order",
    "order_algo",
    "balance",
];

/// Recent trades in the first push of `trades`.
const FIRST_TRADES: usize = 50;

fn error(id: &J, code: i64, message: &str) -> J {
    J::obj()
        .with(
            "error",
            J::obj().with("code", code).with("message", message),
        )
        .with("result", J::Null)
        .with("id", id.clone())
}

fn result(id: &J, result: J) -> J {
    J::obj()
        .with("error", J::Null)
        .with("result", result)
        .with("id", id.clone())
}

fn push(method: &str, params: J) -> J {
    J::obj()
        .with("method", method.to_owned())
        .with("params", params)
        .with("id", J::Null)
}

/// One client request on socket `conn`.
pub(super) fn request(h: &mut Hub, st: &State, conn: u64, value: Option<Value>, now: i64) {
    let Some(v) = value.filter(Value::is_object) else {
        h.send(conn, &error(&J::Null, 1, "invalid argument"));
        return;
    };
    let id = v.get("id").map_or(J::Null, from_value);
    let method = v.get("method").and_then(Value::as_str).unwrap_or("");
    let params: &[Value] = v
        .get("params")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    match method {
        "server.ping" => h.send(conn, &result(&id, J::from("pong"))),
        "server.time" => h.send(conn, &result(&id, J::Int(now.div_euclid(1000)))),
        "server.auth" => {
            let texts: Vec<&str> = params.iter().filter_map(Value::as_str).collect();
            let peer = h.conns.get(&conn).map(|c| c.peer);
            let account = match (texts.as_slice(), peer) {
                ([key, ts, sig], Some(peer)) => {
                    verify(st, peer, (key, ts, sig), (BEHIND_MS, AHEAD_MS), now)
                }
                _ => None,
            };
            match account {
                Some(a) => {
                    if let Some(c) = h.conns.get_mut(&conn) {
                        c.account = Some(a);
                    }
                    let ok = J::obj().with("status", "success");
                    h.send(conn, &result(&id, ok));
                }
                None => {
                    h.send(conn, &error(&id, 3, "auth fail"));
                    h.auth_failed(conn);
                }
            }
        }
        m => subscription(h, st, conn, &id, m, params, now),
    }
}

/// `<channel>.subscribe` and `<channel>.unsubscribe`.
fn subscription(
    h: &mut Hub,
    st: &State,
    conn: u64,
    id: &J,
    method: &str,
    params: &[Value],
    now: i64,
) {
    let found = method.rsplit_once('.').and_then(|(channel, verb)| {
        let channel = CHANNELS.iter().find(|c| **c == channel)?;
        matches!(verb, "subscribe" | "unsubscribe").then_some((*channel, verb))
    });
    let Some((channel, verb)) = found else {
        h.send(conn, &error(id, 4, "method not found"));
        return;
    };
    let authed = h.conns.get(&conn).is_some_and(|c| c.account.is_some());
    if matches!(channel, "order" | "order_algo" | "balance") && !authed {
        h.send(conn, &error(id, 6, "need auth"));
        return;
    }
    let ok = J::obj().with("status", "success");
    if verb == "unsubscribe" && params.is_empty() {
        // An empty list unsubscribes every target of the channel.
        if let Some(c) = h.conns.get_mut(&conn) {
            c.subs.retain(|s| s.channel != channel);
        }
        h.send(conn, &result(id, ok));
        return;
    }
    let Some(wanted) = targets(st, channel, params) else {
        h.send(conn, &error(id, 1, "invalid argument"));
        return;
    };
    let Some(c) = h.conns.get_mut(&conn) else {
        return;
    };
    if verb == "unsubscribe" {
        c.subs.retain(|s| !wanted.iter().any(|w| w.same(s)));
        h.send(conn, &result(id, ok));
        return;
    }
    let mut added = Vec::new();
    for w in wanted {
        if !c.subs.iter().any(|s| s.same(&w)) {
            c.subs.push(w.clone());
            added.push(w);
        }
    }
    h.send(conn, &result(id, ok));
    let depth = h.settings.spot_depth;
    for sub in added {
        let mut sub = sub;
        if let Some(frame) = first(st, &mut sub, depth, now) {
            if let Some(s) = h
                .conns
                .get_mut(&conn)
                .and_then(|c| c.subs.iter_mut().find(|s| s.same(&sub)))
            {
                *s = sub;
            }
            h.send(conn, &frame);
        }
    }
}

/// The subscriptions a request names; `None` when a target is unknown or missing.
fn targets(st: &State, channel: &'static str, params: &[Value]) -> Option<Vec<Sub>> {
    let names: Vec<&str> = params.iter().filter_map(Value::as_str).collect();
    if names.len() != params.len() {
        return None;
    }
    match channel {
        "all_ticker" => Some(vec![Sub::new(channel, Key::All, String::new())]),
        "balance" => {
            if names.is_empty() {
                return Some(vec![Sub::new(channel, Key::All, String::new())]);
            }
            names
                .iter()
                .map(|n| {
                    let c = n.trim().to_ascii_uppercase();
                    let known = st.spot.markets.iter().any(|m| m.base == c || m.quote == c);
                    known.then(|| Sub::new(channel, Key::Currency(c.clone()), c))
                })
                .collect()
        }
        _ => {
            if names.is_empty() {
                // A private channel without targets covers every pair.
                return matches!(channel, "order" | "order_algo")
                    .then(|| vec![Sub::new(channel, Key::All, String::new())]);
            }
            names
                .iter()
                .map(|n| {
                    let m = st
                        .spot
                        .by_symbol
                        .get(&n.trim().to_ascii_lowercase())
                        .copied()?;
                    let name = st.spot.markets.get(m)?.symbol().to_ascii_uppercase();
                    Some(Sub::new(channel, Key::Market(m), name))
                })
                .collect()
        }
    }
}

/// The depth window of pair `m`: the best `depth` levels of each side.
fn window(st: &State, m: usize, depth: usize) -> (Window, Window) {
    let side = |s: Side| -> Window {
        st.spot
            .books
            .get(m)
            .map(|b| b.levels(s, depth).into_iter().collect())
            .unwrap_or_default()
    };
    (side(Side::Buy), side(Side::Sell))
}

fn levels<'a>(list: impl Iterator<Item = (&'a Decimal, &'a Decimal)>) -> J {
    J::Arr(list.map(|(p, s)| J::Arr(vec![dec(*p), dec(*s)])).collect())
}

fn trade_rows<'a>(list: impl Iterator<Item = &'a crate::engine::tape::Trade>) -> J {
    J::Arr(
        list.map(|t| {
            J::obj()
                .with("id", t.id)
                // Seconds with the milliseconds as a fraction, a JSON number.
                .with("time", J::Dec(Decimal::new(t.time_ms, 3)))
                .with("price", dec(t.price))
                .with("amount", dec(t.qty))
                .with(
                    "type",
                    match t.side {
                        Side::Buy => "buy",
                        Side::Sell => "sell",
                    },
                )
        })
        .collect(),
    )
}

/// The first push after a subscribe: the depth snapshot (asks highest first, as the venue
/// lists them) or the recent trades, newest first.
fn first(st: &State, sub: &mut Sub, depth: usize, _now: i64) -> Option<J> {
    let Key::Market(m) = sub.key else {
        return None;
    };
    match sub.channel {
        "depth" => {
            let (bids, asks) = window(st, m, depth);
            let frame = push(
                "depth.update",
                J::Arr(vec![
                    J::Bool(true),
                    J::obj()
                        .with("asks", levels(asks.iter().rev()))
                        .with("bids", levels(bids.iter().rev())),
                    J::from(sub.name.as_str()),
                ]),
            );
            sub.sent = Some((bids, asks));
            Some(frame)
        }
        "trades" => {
            let tape = st.spot.tapes.get(m)?;
            sub.last_trade = tape.last().map_or(0, |t| t.id);
            let recent = tape.trades().iter().rev().take(FIRST_TRADES);
            Some(push(
                "trades.update",
                J::Arr(vec![
                    J::Bool(true),
                    trade_rows(recent),
                    J::from(sub.name.as_str()),
                ]),
            ))
        }
        _ => None,
    }
}

/// The ticker row of pair `m`.
fn ticker_row(st: &State, m: usize, now: i64) -> Option<J> {
    let spec = st.spot.markets.get(m)?;
    let q = st.spot_quote(m, now)?;
    Some(
        J::obj()
            .with("symbol", spec.symbol().to_ascii_uppercase())
            .with("open_24h", dec(q.open))
            .with("high_24h", dec(q.high))
            .with("low_24h", dec(q.low))
            .with("base_volume_24h", dec(q.volume))
            .with("quote_volume_24h", dec(crate::num::round_dp(q.turnover, 8)))
            .with("last", dec(q.last))
            .with("last_qty", dec(q.last_qty))
            .with("best_bid", dec(q.bid.0))
            .with("best_bid_size", dec(q.bid.1))
            .with("best_ask", dec(q.ask.0))
            .with("best_ask_size", dec(q.ask.1))
            .with("timestamp", now),
    )
}

/// What subscription `sub` pushes at public tick `tick`.
pub(super) fn tick(st: &State, sub: &mut Sub, now: i64, tick: u64, depth: usize) -> TickOut {
    let mut out = TickOut::default();
    match (sub.channel, &sub.key) {
        ("depth", Key::Market(m)) => {
            let (bids, asks) = window(st, *m, depth);
            let (old_b, old_a) = sub.sent.take().unwrap_or_default();
            let (db, da) = (diff(&old_b, &bids), diff(&old_a, &asks));
            if !db.is_empty() || !da.is_empty() {
                let lv = |l: &[(Decimal, Decimal)]| levels(l.iter().map(|(p, s)| (p, s)));
                out.delta = Some(push(
                    "depth.update",
                    J::Arr(vec![
                        J::Bool(false),
                        J::obj().with("asks", lv(&da)).with("bids", lv(&db)),
                        J::from(sub.name.as_str()),
                    ]),
                ));
            }
            sub.sent = Some((bids, asks));
        }
        ("trades", Key::Market(m)) => {
            if let Some(tape) = st.spot.tapes.get(*m) {
                let new: Vec<_> = tape.since(sub.last_trade).collect();
                if let Some(last) = new.last() {
                    sub.last_trade = last.id;
                    out.frames.push(push(
                        "trades.update",
                        J::Arr(vec![
                            J::Bool(false),
                            trade_rows(new.iter().rev().copied()),
                            J::from(sub.name.as_str()),
                        ]),
                    ));
                }
            }
        }
        ("ticker", Key::Market(m)) if tick.is_multiple_of(2) => {
            if let Some(row) = ticker_row(st, *m, now) {
                out.frames.push(push("ticker.update", J::Arr(vec![row])));
            }
        }
        ("all_ticker", _) if tick.is_multiple_of(20) => {
            let rows: Vec<J> = (0..st.spot.markets.len())
                .filter_map(|m| ticker_row(st, m, now))
                .collect();
            out.frames.push(push("all_ticker.update", J::Arr(rows)));
        }
        _ => {}
    }
    out
}

/// The `order.update` row of `o`: REST's values (`filled` is `executed_amount`, `price_avg`
/// is `avg_price`, `notional` the executed quote value).
fn order_row(o: &Order, now: i64) -> J {
    J::obj()
        .with("id", o.id.as_str())
        .with("symbol", o.symbol.to_ascii_uppercase())
        .with(
            "side",
            match o.side {
                Side::Buy => "buy",
                Side::Sell => "sell",
            },
        )
        .with(
            "type",
            match o.otype {
                OrdType::Limit => "limit",
                OrdType::Market => "market",
            },
        )
        .with(
            "mode",
            match o.kind {
                crate::dialect::spot::Kind::Spot => 1,
                crate::dialect::spot::Kind::Margin => 2,
            },
        )
        .with("amount", dec(o.amount))
        .with("price", dec(o.price))
        .with("filled", dec(o.executed))
        .with("price_avg", dec(crate::num::round_dp(o.avg_price(), 12)))
        .with("notional", dec(o.executed_value))
        .with("status", i64::from(o.status))
        .with("timestamp", now)
}

/// The private pushes of what changed: `order.update` per changed order, `balance.update` with
/// the changed spot balances.
pub(super) fn changed(h: &mut Hub, st: &State, changes: &Changes, now: i64) {
    for (account, id) in &changes.spot_orders {
        let Some(o) = st.spot.orders.get(id) else {
            continue;
        };
        let frame = push("order.update", J::Arr(vec![order_row(o, now)]));
        for conn in h.of_account(super::WsFamily::Spot, *account) {
            let wants = h.conns.get(&conn).is_some_and(|c| {
                c.subs
                    .iter()
                    .any(|s| s.channel == "order" && s.covers_market(o.market))
            });
            if wants {
                h.send_private(conn, &frame);
            }
        }
    }
    for (account, touched) in &changes.balances {
        let currencies: Vec<&String> = touched
            .iter()
            .filter(|(at, _)| *at == AccountType::Spot)
            .map(|(_, c)| c)
            .collect();
        if currencies.is_empty() {
            continue;
        }
        let Some(a) = st.accounts.get(account) else {
            continue;
        };
        for conn in h.of_account(super::WsFamily::Spot, *account) {
            let rows: Vec<J> = currencies
                .iter()
                .filter(|cur| {
                    h.conns.get(&conn).is_some_and(|c| {
                        c.subs
                            .iter()
                            .any(|s| s.channel == "balance" && s.covers_currency(cur))
                    })
                })
                .map(|cur| {
                    let b = a.balance(AccountType::Spot, cur);
                    J::obj()
                        .with("currency", cur.as_str())
                        .with("free", dec(b.free))
                        .with("used", dec(b.frozen))
                        .with("total", dec(b.total()))
                })
                .collect();
            if !rows.is_empty() {
                h.send_private(conn, &push("balance.update", J::Arr(rows)));
            }
        }
    }
}
