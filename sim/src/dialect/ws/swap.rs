//! The swap socket's dialect (`/swap_ws/v2/`): `{event, id, ...}` requests and
//! `{event, id, code, msg}` replies, the public channels and the private ones (`account`,
//! `position`, `order`).

use super::{dec, diff, verify, Hub, Key, Sub, TickOut, Window, WsFamily};
use crate::dialect::swap::auth::WINDOW_MS;
use crate::engine::accounts::AccountType;
use crate::engine::changes::Changes;
use crate::engine::state::State;
use crate::engine::swap::engine::{PosSide, Side};
use crate::json::{from_value, J};
use rust_decimal::Decimal;
use serde_json::Value;
use std::time::Duration;

/// Every swap channel.
const CHANNELS: [&str; 14] = [
    "ticker",
    "all_ticker",
    "depth",
    "trades",
    "cur_candle",
    "index_price",
    "mark_price",
    "mark_candle",
    "price_range",
    "fund_rate",
    "estimated_settle_price",
    "account",
    "position",
    "order",
];

/// Recent trades in the first push of `trades`.
const FIRST_TRADES: usize = 50;

fn reply(event: &str, id: &J, code: i64, msg: &str) -> J {
    J::obj()
        .with("event", event.to_owned())
        .with("id", id.clone())
        .with("code", code)
        .with("msg", msg)
}

fn push(event: &str, data: J) -> J {
    J::obj().with("event", event.to_owned()).with("data", data)
}

/// One client request on socket `conn`.
pub(super) fn request(h: &mut Hub, st: &State, conn: u64, value: Option<Value>, now: i64) {
    let Some(v) = value.filter(Value::is_object) else {
        let r = J::obj()
            .with("event", "")
            .with("code", 2)
            .with("msg", "invalid param");
        h.send(conn, &r);
        return;
    };
    let event = v.get("event").and_then(Value::as_str).unwrap_or("");
    let Some(id) = v.get("id").filter(|i| i.is_u64()).map(from_value) else {
        let r = J::obj()
            .with("event", event.to_owned())
            .with("code", 2)
            .with("msg", "invalid param");
        h.send(conn, &r);
        return;
    };
    match event {
        "server.ping" => h.send(conn, &reply(event, &id, 1, "success").with("data", "pong")),
        "server.time" => h.send(conn, &reply(event, &id, 1, "success").with("data", now)),
        "server.auth" => auth(h, st, conn, &id, &v, now),
        e => subscription(h, st, conn, &id, e, &v, now),
    }
}

fn auth(h: &mut Hub, st: &State, conn: u64, id: &J, v: &Value, now: i64) {
    let key = v.get("apikey").and_then(Value::as_str).unwrap_or("");
    let sig = v.get("signature").and_then(Value::as_str).unwrap_or("");
    let ts = match v.get("timestamp") {
        Some(Value::Number(n)) => {
            h.note_auth_kind("number");
            n.to_string()
        }
        Some(Value::String(s)) => {
            h.note_auth_kind("string");
            s.clone()
        }
        _ => String::new(),
    };
    let Some(c) = h.conns.get(&conn) else {
        return;
    };
    if c.account.is_some() {
        h.send(conn, &reply("server.auth", id, 9, "repeat auth"));
        return;
    }
    match verify(st, c.peer, (key, &ts, sig), (WINDOW_MS, WINDOW_MS), now) {
        Some(a) => {
            if let Some(c) = h.conns.get_mut(&conn) {
                c.account = Some(a);
            }
            h.send(conn, &reply("server.auth", id, 1, "success"));
        }
        None => {
            h.send(conn, &reply("server.auth", id, 3, "auth fail"));
            h.auth_failed(conn);
        }
    }
}

/// `<channel>.subscribe` and `<channel>.unsubscribe`.
fn subscription(h: &mut Hub, st: &State, conn: u64, id: &J, event: &str, v: &Value, now: i64) {
    let found = event.rsplit_once('.').and_then(|(channel, verb)| {
        let channel = CHANNELS.iter().find(|c| **c == channel)?;
        matches!(verb, "subscribe" | "unsubscribe").then_some((*channel, verb))
    });
    let Some((channel, verb)) = found else {
        h.send(conn, &reply(event, id, 2, "invalid param"));
        return;
    };
    let authed = h.conns.get(&conn).is_some_and(|c| c.account.is_some());
    if matches!(channel, "account" | "position" | "order") && !authed {
        h.send(conn, &reply(event, id, 4, "need auth"));
        return;
    }
    let Some(wanted) = targets(st, channel, v) else {
        h.send(conn, &reply(event, id, 2, "invalid param"));
        return;
    };
    let max = h.settings.max_swap_channels;
    let Some(c) = h.conns.get_mut(&conn) else {
        return;
    };
    if verb == "unsubscribe" {
        let before = c.subs.len();
        c.subs.retain(|s| !wanted.iter().any(|w| w.same(s)));
        let (code, msg) = if c.subs.len() < before {
            (1, "success")
        } else {
            (7, "unsubscribe fail")
        };
        h.send(conn, &reply(event, id, code, msg));
        return;
    }
    if wanted.iter().any(|w| c.subs.iter().any(|s| s.same(w))) {
        h.send(conn, &reply(event, id, 5, "repeat subscribe"));
        return;
    }
    if c.subs.len().saturating_add(wanted.len()) > max {
        // The venue drops the socket ~150 ms later without a reply.
        h.drop_later(conn, Duration::from_millis(150));
        return;
    }
    c.subs.extend(wanted.iter().cloned());
    h.send(conn, &reply(event, id, 1, "success"));
    for sub in wanted {
        let mut sub = sub;
        if let Some(frame) = first(st, &mut sub, now) {
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

/// The subscriptions a request names; `None` when an instrument is unknown or missing, or a
/// level or granularity is wrong.
fn targets(st: &State, channel: &'static str, v: &Value) -> Option<Vec<Sub>> {
    let mut names: Vec<&str> = Vec::new();
    if let Some(t) = v.get("instrument_id") {
        names.push(t.as_str()?);
    }
    if let Some(list) = v.get("instrument_ids") {
        for t in list.as_array()? {
            names.push(t.as_str()?);
        }
    }
    let level = if channel == "depth" {
        match v.get("level").and_then(Value::as_u64) {
            Some(l @ (10 | 20 | 100)) => Some(usize::try_from(l).ok()?),
            _ => return None,
        }
    } else {
        None
    };
    let granularity = if matches!(channel, "cur_candle" | "mark_candle") {
        let g = v.get("granularity").and_then(Value::as_str)?;
        Some((
            g.to_owned(),
            crate::dialect::swap::market::granularity_ms(g)?,
        ))
    } else {
        None
    };
    if names.is_empty() {
        return matches!(channel, "all_ticker" | "account" | "order" | "position").then(|| {
            let mut s = Sub::new(channel, Key::All, String::new());
            s.level = level;
            vec![s]
        });
    }
    if matches!(channel, "all_ticker" | "account") {
        return None;
    }
    names
        .into_iter()
        .map(|n| {
            let i = st.swap.by_id.get(n).copied()?;
            let name = st.swap.instruments.get(i)?.instrument_id.clone();
            let mut s = Sub::new(channel, Key::Market(i), name);
            s.level = level;
            s.granularity = granularity.clone();
            Some(s)
        })
        .collect()
}

/// The depth window of instrument `i`: the best `level` levels of each side.
fn window(st: &State, i: usize, level: usize) -> (Window, Window) {
    let side = |s: Side| -> Window {
        st.swap
            .books
            .get(i)
            .map(|b| b.levels(s, level).into_iter().collect())
            .unwrap_or_default()
    };
    (side(Side::Buy), side(Side::Sell))
}

/// Levels as the swap socket writes them: price a string, size a number.
fn levels<'a>(list: impl Iterator<Item = (&'a Decimal, &'a Decimal)>) -> J {
    J::Arr(
        list.map(|(p, s)| J::Arr(vec![dec(*p), J::Dec(*s)]))
            .collect(),
    )
}

fn depth_frame(name: &str, level: usize, now: i64, bids: J, asks: J) -> J {
    push(
        "depth.update",
        J::obj()
            .with("instrument_id", name.to_owned())
            .with("level", level)
            .with("timestamp", now)
            .with("asks", asks)
            .with("bids", bids),
    )
}

fn trade_rows<'a>(name: &str, list: impl Iterator<Item = &'a crate::engine::tape::Trade>) -> J {
    J::Arr(
        list.map(|t| {
            J::obj()
                .with("instrument_id", name.to_owned())
                .with("trade_id", t.id.to_string())
                .with("direction", t.direction.to_string())
                .with("volume", dec(t.qty))
                .with("price", dec(t.price))
                .with("trade_time", t.time_ms)
        })
        .collect(),
    )
}

/// The first push after a subscribe: the depth snapshot (`full_data`, best first), the recent
/// trades (`full_data`, newest first), or the funding rate.
fn first(st: &State, sub: &mut Sub, now: i64) -> Option<J> {
    let Key::Market(i) = sub.key else {
        return None;
    };
    match sub.channel {
        "depth" => {
            let level = sub.level.unwrap_or(20);
            let (bids, asks) = window(st, i, level);
            let frame = depth_frame(
                &sub.name,
                level,
                now,
                levels(bids.iter().rev()),
                levels(asks.iter()),
            )
            .with("full_data", true);
            sub.sent = Some((bids, asks));
            Some(frame)
        }
        "trades" => {
            let tape = st.swap.tapes.get(i)?;
            sub.last_trade = tape.last().map_or(0, |t| t.id);
            let recent = tape.trades().iter().rev().take(FIRST_TRADES);
            Some(push("trades.update", trade_rows(&sub.name, recent)).with("full_data", true))
        }
        "fund_rate" => fund_rate(st, i, &sub.name),
        _ => None,
    }
}

fn fund_rate(st: &State, i: usize, name: &str) -> Option<J> {
    let f = st.swap.funding.get(i)?;
    let period = st.swap.instruments.get(i)?.funding_period_ms();
    Some(push(
        "fund_rate.update",
        J::obj()
            .with("instrument_id", name.to_owned())
            .with("funding_rate", dec(f.rate))
            .with("funding_time", f.next_time)
            .with("next_funding_rate", dec(f.next_rate))
            .with("next_funding_time", f.next_time.saturating_add(period)),
    ))
}

/// The ticker row of instrument `i`.
fn ticker_row(st: &State, i: usize, now: i64) -> Option<J> {
    let m = st.swap.instruments.get(i)?;
    let q = st.swap_quote(i, now)?;
    Some(
        J::obj()
            .with("instrument_id", m.instrument_id.as_str())
            .with("best_bid", dec(q.bid.0))
            .with("best_bid_size", dec(q.bid.1))
            .with("best_ask", dec(q.ask.0))
            .with("best_ask_size", dec(q.ask.1))
            .with("high_24h", dec(q.high))
            .with("open_24h", dec(q.open))
            .with("low_24h", dec(q.low))
            .with("last", dec(q.last))
            .with("last_qty", dec(q.last_qty))
            .with("volume_24h", dec(q.volume))
            .with("volume_token_24h", dec(q.volume * m.contract_value))
            // As observed on the venue's socket.
            .with("open_interest", "-")
            .with("timestamp", now),
    )
}

/// What subscription `sub` pushes at public tick `tick`.
pub(super) fn tick(st: &State, sub: &mut Sub, now: i64, tick: u64) -> TickOut {
    let mut out = TickOut::default();
    let i = match sub.key {
        Key::Market(i) => i,
        _ => {
            if sub.channel == "all_ticker" && tick.is_multiple_of(20) {
                let rows: Vec<J> = (0..st.swap.instruments.len())
                    .filter_map(|i| ticker_row(st, i, now))
                    .collect();
                out.frames.push(push("all_ticker.update", J::Arr(rows)));
            }
            return out;
        }
    };
    let name = sub.name.clone();
    let price = |field: &str, value: Decimal| {
        push(
            &format!("{field}.update"),
            J::obj()
                .with("instrument_id", name.clone())
                .with(field.to_owned(), dec(value))
                .with("timestamp", now),
        )
    };
    match sub.channel {
        "depth" => {
            let level = sub.level.unwrap_or(20);
            let (bids, asks) = window(st, i, level);
            let (old_b, old_a) = sub.sent.take().unwrap_or_default();
            let (db, da) = (diff(&old_b, &bids), diff(&old_a, &asks));
            if !db.is_empty() || !da.is_empty() {
                // Delta bids ascending (worst first), as observed.
                let lv = |l: &[(Decimal, Decimal)]| levels(l.iter().map(|(p, s)| (p, s)));
                out.delta = Some(depth_frame(&name, level, now, lv(&db), lv(&da)));
            }
            sub.sent = Some((bids, asks));
        }
        "trades" => {
            if let Some(tape) = st.swap.tapes.get(i) {
                let new: Vec<_> = tape.since(sub.last_trade).collect();
                if let Some(last) = new.last() {
                    sub.last_trade = last.id;
                    out.frames.push(push(
                        "trades.update",
                        trade_rows(&name, new.iter().rev().copied()),
                    ));
                }
            }
        }
        "ticker" if tick.is_multiple_of(2) => {
            if let Some(row) = ticker_row(st, i, now) {
                out.frames.push(push("ticker.update", row));
            }
        }
        "index_price" if tick.is_multiple_of(5) => {
            out.frames
                .push(price("index_price", st.swap.index_price(i)));
        }
        "mark_price" if tick.is_multiple_of(5) => {
            out.frames.push(price("mark_price", st.swap.mark(i)))
        }
        "fund_rate" if tick.is_multiple_of(160) => out.frames.extend(fund_rate(st, i, &name)),
        "price_range" if tick.is_multiple_of(10) => out.frames.push(push(
            "price_range.update",
            J::obj()
                .with("instrument_id", name.clone())
                .with("highest", dec(st.swap.max_buy(i)))
                .with("lowest", dec(st.swap.min_sell(i)))
                .with("timestamp", now),
        )),
        "cur_candle" if tick.is_multiple_of(5) => {
            if let Some((g, len)) = &sub.granularity {
                let start = now.div_euclid(*len) * len;
                out.frames.push(push(
                    "cur_candle.update",
                    J::obj()
                        .with("instrument_id", name.clone())
                        .with("granularity", g.clone())
                        .with(
                            "candle",
                            crate::dialect::swap::market::candle(st, i, start, *len),
                        ),
                ));
            }
        }
        _ => {}
    }
    out
}

/// The private pushes of what changed: `order.update` (REST's order object) per changed
/// order, `position.update` (REST's position rows, and a zero row for a side that closed) per
/// changed position, `account.update` (REST's balance rows) for changed swap balances.
pub(super) fn changed(h: &mut Hub, st: &State, changes: &Changes, now: i64) {
    for (account, id) in &changes.swap_orders {
        let Some(o) = st.swap.orders.get(id) else {
            continue;
        };
        let frame = push(
            "order.update",
            J::Arr(vec![crate::dialect::swap::trade::order_json(st, o)]),
        );
        for conn in h.of_account(WsFamily::Swap, *account) {
            if wants(h, conn, "order", |s| s.covers_market(o.inst)) {
                h.send_private(conn, &frame);
            }
        }
    }
    for (account, i) in &changes.swap_positions {
        for conn in h.of_account(WsFamily::Swap, *account) {
            if !wants(h, conn, "position", |s| s.covers_market(*i)) {
                continue;
            }
            let mut rows = Vec::new();
            for side in [PosSide::Long, PosSide::Short] {
                let long = side == PosSide::Long;
                let open = st.swap.positions.get(&(*account, *i, side));
                let Some(c) = h.conns.get_mut(&conn) else {
                    continue;
                };
                match open {
                    Some(p) => {
                        c.positions.insert((*i, long));
                        rows.push(crate::dialect::swap::account::position_json(
                            st, *account, *i, side, p, now,
                        ));
                    }
                    None if c.positions.remove(&(*i, long)) => {
                        rows.push(closed_row(st, *i, side, now));
                    }
                    None => {}
                }
            }
            if !rows.is_empty() {
                h.send_private(conn, &push("position.update", J::Arr(rows)));
            }
        }
    }
    for (account, touched) in &changes.balances {
        let currencies: Vec<&String> = touched
            .iter()
            .filter(|(at, _)| *at == AccountType::Swap)
            .map(|(_, c)| c)
            .collect();
        if currencies.is_empty() {
            continue;
        }
        let rows: Vec<J> = currencies
            .iter()
            .map(|cur| crate::dialect::swap::account::balance_row(st, *account, cur, now))
            .collect();
        let frame = push("account.update", J::Arr(rows));
        for conn in h.of_account(WsFamily::Swap, *account) {
            if wants(h, conn, "account", |_| true) {
                h.send_private(conn, &frame);
            }
        }
    }
}

fn wants(h: &Hub, conn: u64, channel: &str, covers: impl Fn(&Sub) -> bool) -> bool {
    h.conns
        .get(&conn)
        .is_some_and(|c| c.subs.iter().any(|s| s.channel == channel && covers(s)))
}

/// The row of a position side that closed: nothing held.
fn closed_row(st: &State, i: usize, side: PosSide, now: i64) -> J {
    let id = st
        .swap
        .instruments
        .get(i)
        .map_or("", |m| m.instrument_id.as_str());
    J::obj()
        .with("instrument_id", id)
        .with("side", side.text())
        .with("position", "0")
        .with("avail_position", "0")
        .with("avg_cost", "0")
        .with("margin", "0")
        .with("unrealized_pnl", "0")
        .with("timestamp", now)
}
