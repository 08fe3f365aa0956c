//! The spot socket `ws/v1` (`docs/protocol.md`, "Websockets"): JSON-RPC-like requests
//! `{"id","method","params"}`, replies `{"id","result","error"}`, pushes
//! `{"method":"<channel>.update","params":[...], "id":null}`.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::de::reader::from_str;
use crate::types::{Family, TimestampMillis};
use crate::ws::event::{AuthCause, Event, RawJson, ReplyError};
use crate::ws::model::{Sides, SpotAlgoOrder, SpotBalance, SpotTicker, SpotTrade};
use crate::ws::protocol::{DepthPush, Dialect, Incoming, ReplyValue};
use crate::ws::subscription::{Channel, Subscription};

/// The spot socket's [`Dialect`]: no channel limit of its own, no reply with a meaning of its
/// own, balances covered per currency by `balance` subscriptions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SpotDialect;

impl Dialect for SpotDialect {
    fn family(&self) -> Family {
        Family::Spot
    }

    fn ping(&self, id: u64) -> String {
        ping(id)
    }

    fn time(&self, id: u64) -> String {
        time(id)
    }

    fn auth(&self, id: u64, key: &str, timestamp_ms: i64, signature: &str) -> String {
        auth(id, key, &timestamp_ms.to_string(), signature)
    }

    fn subscribe(&self, id: u64, subs: &[&Subscription], unsubscribe: bool) -> String {
        subscribe(id, subs, unsubscribe)
    }

    fn decode(&self, text: &[u8]) -> Incoming {
        decode(text)
    }

    fn max_channels(&self) -> Option<usize> {
        None
    }

    fn already_subscribed(&self, _error: &ReplyError) -> bool {
        false
    }

    fn auth_refusal_cause(&self, _error: &ReplyError) -> Option<AuthCause> {
        None
    }
}

/// `{"id":N,"method":"server.ping","params":[]}`.
pub(crate) fn ping(id: u64) -> String {
    format!(r#"{{"id":{id},"method":"server.ping","params":[]}}"#)
}

/// `{"id":N,"method":"server.time","params":[]}` (answered in seconds).
pub(crate) fn time(id: u64) -> String {
    format!(r#"{{"id":{id},"method":"server.time","params":[]}}"#)
}

/// `{"id":N,"method":"server.auth","params":[KEY, "ms", SIGN]}` (`docs/protocol.md`, "Websocket
/// authentication": the timestamp is a decimal string of milliseconds, the signature base64 of
/// HMAC-SHA256 of that string).
pub(crate) fn auth(id: u64, key: &str, timestamp_ms: &str, signature: &str) -> String {
    serde_json::json!({"id": id, "method": "server.auth", "params": [key, timestamp_ms, signature]})
        .to_string()
}

/// `{"id":N,"method":"<channel>.subscribe","params":[SYMBOLS]}` for subscriptions of one
/// channel; no target is `[]` (every market, or `all_ticker`).
pub(crate) fn subscribe(id: u64, subs: &[&Subscription], unsubscribe: bool) -> String {
    let channel = subs.first().map_or("", |s| s.channel.wire());
    let verb = if unsubscribe {
        "unsubscribe"
    } else {
        "subscribe"
    };
    let targets: Vec<&str> = subs.iter().filter_map(|s| s.target.as_deref()).collect();
    serde_json::json!({"id": id, "method": format!("{channel}.{verb}"), "params": targets})
        .to_string()
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
    #[serde(default, borrow)]
    error: Option<&'a RawValue>,
}

/// Reads one server message.
pub(crate) fn decode(bytes: &[u8]) -> Incoming {
    // Frames reach here as UTF-8 (see `frame::decode`).
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Incoming::Event(Event::undecodable(Family::Spot, "not UTF-8", bytes));
    };
    if !text.trim_start().starts_with('{') {
        return Incoming::Event(Event::undecodable(Family::Spot, "not a JSON object", bytes));
    }
    let env: Envelope<'_> = match from_str(text) {
        Ok(e) => e,
        Err(e) => return Incoming::Event(Event::undecodable(Family::Spot, e, bytes)),
    };
    if let Some(id) = env.id {
        return Incoming::Reply {
            id: id.get().parse().ok(),
            outcome: match env.error {
                Some(error) => Err(reply_error(error)),
                None => Ok(reply_value(env.result)),
            },
        };
    }
    let Some(method) = env.method else {
        return Incoming::Event(Event::undecodable(
            Family::Spot,
            "neither a reply (`id`) nor a push (`method`)",
            bytes,
        ));
    };
    let params = env.params.unwrap_or(RawValue::NULL);
    let channel = method
        .strip_suffix(".update")
        .and_then(Channel::from_wire)
        .filter(|c| c.in_family(Family::Spot));
    let Some(channel) = channel else {
        return Incoming::Event(Event::Unknown {
            family: Family::Spot,
            channel: method.into_owned(),
            data: RawJson::of(params),
        });
    };
    match push(channel, params) {
        Ok(incoming) => incoming,
        Err(e) => Incoming::Event(Event::undecodable(
            Family::Spot,
            format!("{method}: {e}"),
            bytes,
        )),
    }
}

fn push(channel: Channel, params: &RawValue) -> Result<Incoming, serde_json::Error> {
    let json = params.get();
    Ok(match channel {
        Channel::Depth => {
            let (clean, sides, symbol): (bool, Sides, String) = from_str(json)?;
            Incoming::Depth(DepthPush {
                target: symbol,
                level: None,
                snapshot: clean,
                bids: sides.bids,
                asks: sides.asks,
                timestamp: None,
            })
        }
        Channel::Trades => {
            let (clean, trades, symbol): (bool, Vec<SpotTrade>, String) = from_str(json)?;
            Incoming::Event(Event::SpotTrades {
                symbol,
                snapshot: clean,
                trades,
            })
        }
        Channel::Ticker | Channel::AllTicker => Incoming::Event(Event::SpotTickers {
            all: channel == Channel::AllTicker,
            tickers: tickers(json)?,
        }),
        Channel::Order => Incoming::Event(Event::SpotOrders {
            orders: from_str(json)?,
        }),
        Channel::OrderAlgo => Incoming::Event(Event::SpotAlgoOrders {
            orders: from_str::<Vec<SpotAlgoOrder>>(json)?,
        }),
        Channel::Balance => Incoming::Event(Event::SpotBalances {
            balances: from_str::<Vec<SpotBalance>>(json)?,
        }),
        _ => Incoming::Event(Event::Unknown {
            family: Family::Spot,
            channel: format!("{}.update", channel.wire()),
            data: RawJson::of(params),
        }),
    })
}

/// Ticker `params`: `[ticker, ...]` (documents) or `[[ticker, ...]]` (one live client); both
/// are read (docs/protocol.md, "Subscribing").
fn tickers(json: &str) -> Result<Vec<SpotTicker>, serde_json::Error> {
    let rows: Vec<&RawValue> = from_str(json)?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        if row.get().starts_with('[') {
            out.extend(from_str::<Vec<SpotTicker>>(row.get())?);
        } else {
            out.push(from_str::<SpotTicker>(row.get())?);
        }
    }
    Ok(out)
}

/// A non-null `error`: a string, an object with `code`/`message`, or anything else (kept as
/// text) (docs/protocol.md, "Websocket replies").
fn reply_error(error: &RawValue) -> ReplyError {
    #[derive(Deserialize)]
    struct Coded {
        #[serde(default, with = "crate::de::opt")]
        code: Option<i64>,
        #[serde(default, with = "crate::de::opt_string")]
        message: Option<String>,
    }
    if let Ok(text) = serde_json::from_str::<String>(error.get()) {
        return ReplyError {
            code: None,
            message: Some(text),
        };
    }
    match serde_json::from_str::<Coded>(error.get()) {
        Ok(c) => ReplyError {
            code: c.code,
            message: c.message,
        },
        Err(_) => ReplyError {
            code: None,
            message: Some(error.get().chars().take(200).collect()),
        },
    }
}

/// A success `result`: `"pong"`, integer seconds (`server.time`), or anything else.
fn reply_value(result: Option<&RawValue>) -> ReplyValue {
    let Some(raw) = result else {
        return ReplyValue::Ok;
    };
    let text = raw.get().trim_matches('"');
    if text == "pong" {
        return ReplyValue::Pong;
    }
    match crate::de::integer::<i64>(text) {
        Some(secs) => ReplyValue::Time(TimestampMillis(secs.saturating_mul(1000))),
        None => ReplyValue::Ok,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ws::model::Level;
    use rust_decimal::Decimal;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn request_frames() {
        assert_eq!(ping(1), r#"{"id":1,"method":"server.ping","params":[]}"#);
        // The auth frame of `docs/protocol.md` ("Websocket authentication").
        assert_eq!(
            auth(
                1,
                "0123456789abcd",
                "1583135616239",
                "tzcVcUbbxJ7fzsNURTvDD42uAs9jDTV67ObUJKQ+QHk="
            ),
            r#"{"id":1,"method":"server.auth","params":["0123456789abcd","1583135616239","tzcVcUbbxJ7fzsNURTvDD42uAs9jDTV67ObUJKQ+QHk="]}"#
        );
        let a = Subscription::spot(Channel::Trades, "eth_usdt").unwrap();
        let b = Subscription::spot(Channel::Trades, "BTC_USDT").unwrap();
        assert_eq!(
            subscribe(3, &[&a, &b], false),
            r#"{"id":3,"method":"trades.subscribe","params":["ETH_USDT","BTC_USDT"]}"#
        );
        let all: Subscription = "spot:order".parse().unwrap();
        assert_eq!(
            subscribe(4, &[&all], true),
            r#"{"id":4,"method":"order.unsubscribe","params":[]}"#
        );
    }

    #[test]
    fn replies() {
        let r = decode(br#"{"error":null,"result":{"status":"success"},"id":1}"#);
        assert!(matches!(
            r,
            Incoming::Reply {
                id: Some(1),
                outcome: Ok(ReplyValue::Ok)
            }
        ));
        let r = decode(br#"{"id":2,"result":"pong","error":null}"#);
        assert!(matches!(
            r,
            Incoming::Reply {
                id: Some(2),
                outcome: Ok(ReplyValue::Pong)
            }
        ));
        let r = decode(br#"{"id":3,"result":1523348055,"error":null}"#);
        assert!(matches!(
            r,
            Incoming::Reply {
                id: Some(3),
                outcome: Ok(ReplyValue::Time(TimestampMillis(1523348055000)))
            }
        ));
        match decode(br#"{"id":4,"result":null,"error":{"code":1,"message":"invalid argument"}}"#) {
            Incoming::Reply {
                id: Some(4),
                outcome: Err(e),
            } => assert_eq!(
                e,
                ReplyError {
                    code: Some(1),
                    message: Some("invalid argument".into())
                }
            ),
            _ => panic!(),
        }
        match decode(br#"{"id":5,"result":null,"error":"auth fail"}"#) {
            Incoming::Reply {
                outcome: Err(e), ..
            } => {
                assert_eq!(
                    e,
                    ReplyError {
                        code: None,
                        message: Some("auth fail".into())
                    }
                )
            }
            _ => panic!(),
        }
    }

    #[test]
    fn depth_snapshot_and_delta() {
        let snap = br#"{"method":"depth.update","params":[true,{"asks":[["11800.2","0.5"],["11788.73","1.2"]],"bids":[["11780.1","0.3"]]},"BTC_USDT"],"id":null}"#;
        match decode(snap) {
            Incoming::Depth(p) => {
                assert_eq!(p.target, "BTC_USDT");
                assert!(p.snapshot);
                assert_eq!(
                    p.asks,
                    vec![
                        Level::new(d("11800.2"), d("0.5")),
                        Level::new(d("11788.73"), d("1.2"))
                    ]
                );
                assert_eq!(p.bids, vec![Level::new(d("11780.1"), d("0.3"))]);
            }
            _ => panic!(),
        }
        let delta = br#"{"method":"depth.update","params":[false,{"asks":[["11788.73","0"]]},"BTC_USDT"],"id":null}"#;
        match decode(delta) {
            Incoming::Depth(p) => {
                assert!(!p.snapshot);
                assert_eq!(p.asks, vec![Level::new(d("11788.73"), d("0"))]);
                assert!(p.bids.is_empty());
            }
            _ => panic!(),
        }
    }

    #[test]
    fn trades_tickers_private() {
        let t = br#"{"method":"trades.update","params":[true,[{"id":7172173,"time":1523339279.761838,"price":"398.59","amount":"0.027","type":"buy"},{"id":7172172,"time":1597419159,"price":"398.58","amount":"1","type":"sell"}],"ETH_USDT"],"id":null}"#;
        match decode(t) {
            Incoming::Event(Event::SpotTrades {
                symbol,
                snapshot,
                trades,
            }) => {
                assert_eq!(
                    (symbol.as_str(), snapshot, trades.len()),
                    ("ETH_USDT", true, 2)
                );
                assert_eq!(trades[0].time, d("1523339279.761838"));
                assert_eq!(trades[1].price, Some(d("398.58")));
            }
            e => panic!("{:?}", std::mem::discriminant(&e)),
        }
        for frame in [
            &br#"{"method":"ticker.update","params":[{"symbol":"BTC_USDT","last":"6795.07","timestamp":1523338956129}],"id":null}"#[..],
            br#"{"method":"ticker.update","params":[[{"symbol":"BTC_USDT","last":"6795.07","timestamp":1523338956129}]],"id":null}"#,
        ] {
            match decode(frame) {
                Incoming::Event(Event::SpotTickers { all: false, tickers }) => {
                    assert_eq!(tickers.len(), 1);
                    assert_eq!(tickers[0].last, Some(d("6795.07")));
                }
                _ => panic!(),
            }
        }
        let o = br#"{"method":"order.update","params":[{"amount":"0.01","filled":"0.004","id":"198361cecdc65f9c8c9bb2fa68faec40","mode":1,"notional":"0","price":"30000","price_avg":"30000","side":"buy","status":1,"symbol":"BTC_USDT","timestamp":1583135616239,"type":"limit"}],"id":null}"#;
        match decode(o) {
            Incoming::Event(Event::SpotOrders { orders }) => {
                let o = &orders[0];
                assert_eq!(o.id, "198361cecdc65f9c8c9bb2fa68faec40");
                assert_eq!(o.filled, Some(d("0.004")));
                assert_eq!(o.status, Some(crate::spot::OrderStatus::PartiallyExecuted));
                assert_eq!(o.timestamp, Some(TimestampMillis(1583135616239)));
            }
            _ => panic!(),
        }
        // The same order fully filled: cumulative `filled`, status 2.
        let full = br#"{"method":"order.update","params":[{"amount":"0.01","filled":"0.01","id":"198361cecdc65f9c8c9bb2fa68faec40","mode":1,"notional":"300","price":"30000","price_avg":"30000","side":"buy","status":2,"symbol":"BTC_USDT","timestamp":1583135617000,"type":"limit"}],"id":null}"#;
        match decode(full) {
            Incoming::Event(Event::SpotOrders { orders }) => {
                assert_eq!(orders[0].filled, Some(d("0.01")));
                assert_eq!(orders[0].notional, Some(d("300")));
                assert_eq!(
                    orders[0].status,
                    Some(crate::spot::OrderStatus::FullyExecuted)
                );
            }
            _ => panic!(),
        }
        let b = br#"{"method":"balance.update","params":[{"currency":"USDT","free":"100.5","total":"101","used":"0.5"}],"id":null}"#;
        match decode(b) {
            Incoming::Event(Event::SpotBalances { balances }) => {
                assert_eq!(balances[0].used, Some(d("0.5")))
            }
            _ => panic!(),
        }
    }

    #[test]
    fn unknown_and_bad_frames() {
        match decode(br#"{"method":"kline.update","params":[1,2],"id":null}"#) {
            Incoming::Event(Event::Unknown { channel, data, .. }) => {
                assert_eq!(channel, "kline.update");
                assert_eq!(data.get(), "[1,2]");
            }
            _ => panic!(),
        }
        assert!(matches!(
            decode(
                br#"{"method":"depth.update","params":[true,{"asks":[["x","1"]]},"A"],"id":null}"#
            ),
            Incoming::Event(Event::Undecodable { .. })
        ));
        assert!(matches!(
            decode(b"[1]"),
            Incoming::Event(Event::Undecodable { .. })
        ));
        assert!(matches!(
            decode(b"{}"),
            Incoming::Event(Event::Undecodable { .. })
        ));
    }
}
