//! The swap socket `swap_ws/v2` (`docs/protocol.md`, "Websockets"): requests `{"event","id",...}`,
//! replies `{"event","id","code","msg"[,"data"]}`, pushes `{"event":"<channel>.update","data":...
//! [,"full_data":true]}`.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::de::reader::from_str;
use crate::types::{Family, TimestampMillis};
use crate::ws::event::{AuthCause, Event, RawJson, ReplyError};
use crate::ws::model::{Level, SwapTicker};
use crate::ws::protocol::{DepthPush, Dialect, Incoming, ReplyValue};
use crate::ws::subscription::{Channel, Subscription};
use crate::ws::MAX_SWAP_CHANNELS;

/// Swap's code for a subscription already running ("repeat subscribe"): the stream goes on.
const REPEAT_SUBSCRIBE: i64 = 5;

/// Swap's code for a key that is not active for the API (a permission).
const API_NOT_ACTIVE: i64 = 8;

/// The swap socket's [`Dialect`]: at most [`MAX_SWAP_CHANNELS`] channels, code 5 ("repeat
/// subscribe") accepted, code 8 ("api not active") a permission, balances covered by the one
/// `account` subscription.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SwapDialect;

impl Dialect for SwapDialect {
    fn family(&self) -> Family {
        Family::Swap
    }

    fn ping(&self, id: u64) -> String {
        ping(id)
    }

    fn time(&self, id: u64) -> String {
        time(id)
    }

    fn auth(&self, id: u64, key: &str, timestamp_ms: i64, signature: &str) -> String {
        auth(id, key, timestamp_ms, signature)
    }

    fn subscribe(&self, id: u64, subs: &[&Subscription], unsubscribe: bool) -> String {
        subscribe(id, subs, unsubscribe)
    }

    fn decode(&self, text: &[u8]) -> Incoming {
        decode(text)
    }

    fn max_channels(&self) -> Option<usize> {
        Some(MAX_SWAP_CHANNELS)
    }

    fn already_subscribed(&self, error: &ReplyError) -> bool {
        error.code == Some(REPEAT_SUBSCRIBE)
    }

    fn auth_refusal_cause(&self, error: &ReplyError) -> Option<AuthCause> {
        (error.code == Some(API_NOT_ACTIVE)).then_some(AuthCause::Permission)
    }
}

/// `{"event":"server.ping","id":N}`.
pub(crate) fn ping(id: u64) -> String {
    format!(r#"{{"event":"server.ping","id":{id}}}"#)
}

/// `{"event":"server.time","id":N}` (answered in ms).
pub(crate) fn time(id: u64) -> String {
    format!(r#"{{"event":"server.time","id":{id}}}"#)
}

/// `{"apikey":KEY,"event":"server.auth","id":N,"signature":SIGN,"timestamp":MS}`
/// (`docs/protocol.md`, "Websocket authentication").
///
/// DESIGN: the timestamp's JSON type is unknown; it is sent as a number, as the one client that
/// implements this channel does. The signature is the spot one (base64 of HMAC-SHA256 of the
/// decimal timestamp).
pub(crate) fn auth(id: u64, key: &str, timestamp_ms: i64, signature: &str) -> String {
    serde_json::json!({
        "event": "server.auth",
        "id": id,
        "apikey": key,
        "timestamp": timestamp_ms,
        "signature": signature,
    })
    .to_string()
}

/// A (un)subscribe of subscriptions sharing channel, level and granularity: one target is
/// `instrument_id`, several `instrument_ids`, none (`all_ticker`, `account`) neither.
pub(crate) fn subscribe(id: u64, subs: &[&Subscription], unsubscribe: bool) -> String {
    let first = subs.first();
    let channel = first.map_or("", |s| s.channel.wire());
    let verb = if unsubscribe {
        "unsubscribe"
    } else {
        "subscribe"
    };
    let mut m = serde_json::Map::new();
    m.insert("event".into(), format!("{channel}.{verb}").into());
    m.insert("id".into(), id.into());
    let targets: Vec<&str> = subs.iter().filter_map(|s| s.target.as_deref()).collect();
    match targets.as_slice() {
        [] => {}
        [one] => {
            m.insert("instrument_id".into(), (*one).into());
        }
        many => {
            m.insert("instrument_ids".into(), many.to_vec().into());
        }
    }
    if let Some(level) = first.and_then(|s| s.level) {
        m.insert("level".into(), level.into());
    }
    if let Some(g) = first.and_then(|s| s.granularity.as_deref()) {
        m.insert("granularity".into(), g.into());
    }
    serde_json::Value::Object(m).to_string()
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow)]
    event: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    code: Option<&'a RawValue>,
    #[serde(default, borrow)]
    msg: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    data: Option<&'a RawValue>,
    #[serde(default, borrow)]
    full_data: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct DepthData {
    #[serde(with = "crate::de::text")]
    instrument_id: String,
    #[serde(default, with = "crate::de::opt")]
    level: Option<u16>,
    #[serde(default, with = "crate::de::opt")]
    timestamp: Option<TimestampMillis>,
    #[serde(default, deserialize_with = "crate::de::rows")]
    asks: Vec<Level>,
    #[serde(default, deserialize_with = "crate::de::rows")]
    bids: Vec<Level>,
}

/// Reads one server message.
pub(crate) fn decode(bytes: &[u8]) -> Incoming {
    // Frames reach here as UTF-8 (see `frame::decode`).
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Incoming::Event(Event::undecodable(Family::Swap, "not UTF-8", bytes));
    };
    // The documents show `all_ticker` pushes as a bare array (docs/protocol.md, "Subscribing").
    if text.trim_start().starts_with('[') {
        return match from_str::<Vec<SwapTicker>>(text) {
            Ok(tickers) => Incoming::Event(Event::SwapAllTickers { tickers }),
            Err(e) => Incoming::Event(Event::undecodable(Family::Swap, e, bytes)),
        };
    }
    let env: Envelope<'_> = match from_str(text) {
        Ok(e) => e,
        Err(e) => return Incoming::Event(Event::undecodable(Family::Swap, e, bytes)),
    };
    if let Some(code) = env.code {
        let code = crate::de::integer::<i64>(code.get().trim_matches('"'));
        return Incoming::Reply {
            id: env.id.and_then(|id| id.get().parse().ok()),
            outcome: if code == Some(1) {
                Ok(reply_value(env.data))
            } else {
                Err(ReplyError {
                    code,
                    message: env.msg.map(Cow::into_owned),
                })
            },
        };
    }
    let Some(event) = env.event else {
        return Incoming::Event(Event::undecodable(
            Family::Swap,
            "neither a reply (`code`) nor a push (`event`)",
            bytes,
        ));
    };
    let data = env.data.unwrap_or(RawValue::NULL);
    let snapshot = env
        .full_data
        .is_some_and(|f| matches!(f.get(), "true" | "1" | "\"true\""));
    let channel = event
        .strip_suffix(".update")
        .and_then(Channel::from_wire)
        .filter(|c| c.in_family(Family::Swap));
    let Some(channel) = channel else {
        return Incoming::Event(Event::Unknown {
            family: Family::Swap,
            channel: event.into_owned(),
            data: RawJson::of(data),
        });
    };
    match push(channel, data, snapshot) {
        Ok(incoming) => incoming,
        Err(e) => Incoming::Event(Event::undecodable(
            Family::Swap,
            format!("{event}: {e}"),
            bytes,
        )),
    }
}

fn push(channel: Channel, data: &RawValue, snapshot: bool) -> Result<Incoming, serde_json::Error> {
    let json = data.get();
    Ok(Incoming::Event(match channel {
        Channel::Depth => {
            let d: DepthData = from_str(json)?;
            return Ok(Incoming::Depth(DepthPush {
                target: d.instrument_id,
                level: d.level,
                snapshot,
                bids: d.bids,
                asks: d.asks,
                timestamp: d.timestamp,
            }));
        }
        Channel::Ticker => Event::SwapTicker(obj(json)?),
        Channel::AllTicker => Event::SwapAllTickers {
            tickers: one_or_many(json)?,
        },
        Channel::Trades => Event::SwapTrades {
            snapshot,
            trades: one_or_many(json)?,
        },
        Channel::Candle => Event::SwapCandle(obj(json)?),
        Channel::MarkCandle => Event::SwapMarkCandle(obj(json)?),
        Channel::IndexPrice => Event::SwapIndexPrice(obj(json)?),
        Channel::MarkPrice => Event::SwapMarkPrice(obj(json)?),
        Channel::PriceRange => Event::SwapPriceRange(obj(json)?),
        Channel::FundRate => Event::SwapFundingRate(obj(json)?),
        Channel::EstimatedSettlePrice => Event::SwapSettlePrice(obj(json)?),
        Channel::Account => Event::SwapAccounts {
            accounts: one_or_many(json)?,
        },
        Channel::Position => Event::SwapPositions {
            positions: one_or_many(json)?,
        },
        Channel::Order => Event::SwapOrders {
            orders: one_or_many(json)?,
        },
        _ => Event::Unknown {
            family: Family::Swap,
            channel: format!("{}.update", channel.wire()),
            data: RawJson::of(data),
        },
    }))
}

fn obj<T: DeserializeOwned>(json: &str) -> Result<T, serde_json::Error> {
    from_str(json)
}

/// A list of records, or one record alone (the unverified private channels may send either).
fn one_or_many<T: DeserializeOwned>(json: &str) -> Result<Vec<T>, serde_json::Error> {
    if json.trim_start().starts_with('{') {
        from_str(json).map(|one| vec![one])
    } else {
        from_str(json)
    }
}

fn reply_value(data: Option<&RawValue>) -> ReplyValue {
    let Some(raw) = data else {
        return ReplyValue::Ok;
    };
    let text = raw.get().trim_matches('"');
    if text == "pong" {
        return ReplyValue::Pong;
    }
    match crate::de::integer::<i64>(text) {
        Some(ms) => ReplyValue::Time(TimestampMillis(ms)),
        None => ReplyValue::Ok,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn request_frames() {
        assert_eq!(ping(7), r#"{"event":"server.ping","id":7}"#);
        let a: Subscription = "swap:depth:BTCUSDTPERP".parse().unwrap();
        assert_eq!(
            subscribe(1, &[&a], false),
            r#"{"event":"depth.subscribe","id":1,"instrument_id":"BTCUSDTPERP","level":20}"#
        );
        let b: Subscription = "swap:depth:ETHUSDTPERP".parse().unwrap();
        assert_eq!(
            subscribe(2, &[&a, &b], true),
            r#"{"event":"depth.unsubscribe","id":2,"instrument_ids":["BTCUSDTPERP","ETHUSDTPERP"],"level":20}"#
        );
        let c: Subscription = "swap:cur_candle:BTCUSDTPERP:5m".parse().unwrap();
        assert_eq!(
            subscribe(3, &[&c], false),
            r#"{"event":"cur_candle.subscribe","granularity":"5m","id":3,"instrument_id":"BTCUSDTPERP"}"#
        );
        let acc: Subscription = "swap:account".parse().unwrap();
        assert_eq!(
            subscribe(4, &[&acc], false),
            r#"{"event":"account.subscribe","id":4}"#
        );
        assert_eq!(
            auth(
                5,
                "k",
                1662346006093,
                "RYJ9f9tXUnR454vNaOcEis+ZGWL3FzOseRtLpM6wPyg="
            ),
            r#"{"apikey":"k","event":"server.auth","id":5,"signature":"RYJ9f9tXUnR454vNaOcEis+ZGWL3FzOseRtLpM6wPyg=","timestamp":1662346006093}"#
        );
    }

    #[test]
    fn replies_codes_2_5_7() {
        assert!(matches!(
            decode(br#"{"event":"server.ping","id":7,"code":1,"msg":"success","data":"pong"}"#),
            Incoming::Reply {
                id: Some(7),
                outcome: Ok(ReplyValue::Pong)
            }
        ));
        assert!(matches!(
            decode(
                br#"{"event":"server.time","id":1,"code":1,"msg":"success","data":1662109531891}"#
            ),
            Incoming::Reply {
                id: Some(1),
                outcome: Ok(ReplyValue::Time(TimestampMillis(1662109531891)))
            }
        ));
        for (frame, code, msg) in [
            (
                &br#"{"event":"depth.subscribe","id":3,"code":2,"msg":"invalid param"}"#[..],
                2,
                "invalid param",
            ),
            (
                br#"{"event":"depth.subscribe","id":3,"code":5,"msg":"repeat subscribe"}"#,
                5,
                "repeat subscribe",
            ),
            (
                br#"{"event":"depth.unsubscribe","id":3,"code":7,"msg":"unsubscribe fail"}"#,
                7,
                "unsubscribe fail",
            ),
        ] {
            match decode(frame) {
                Incoming::Reply {
                    id: Some(3),
                    outcome: Err(e),
                } => {
                    assert_eq!(
                        e,
                        ReplyError {
                            code: Some(code),
                            message: Some(msg.into())
                        }
                    )
                }
                _ => panic!(),
            }
        }
        // Non-JSON text gets an id-less code 2.
        assert!(matches!(
            decode(br#"{"event":"","code":2,"msg":"invalid param"}"#),
            Incoming::Reply {
                id: None,
                outcome: Err(_)
            }
        ));
    }

    #[test]
    fn depth_snapshot_then_delta() {
        let snap = br#"{"event":"depth.update","data":{"instrument_id":"BTCUSDTPERP","level":20,"timestamp":1758598000000,"asks":[["86658.1",2284],["86658.2",10]],"bids":[["86658.0",5],["86657.9",7]]},"full_data":true}"#;
        match decode(snap) {
            Incoming::Depth(p) => {
                assert!(p.snapshot);
                assert_eq!((p.target.as_str(), p.level), ("BTCUSDTPERP", Some(20)));
                assert_eq!(p.timestamp, Some(TimestampMillis(1758598000000)));
                assert_eq!(p.asks[0], Level::new(d("86658.1"), d("2284")));
                assert_eq!(p.bids[1], Level::new(d("86657.9"), d("7")));
            }
            _ => panic!(),
        }
        let delta = br#"{"event":"depth.update","data":{"instrument_id":"BTCUSDTPERP","level":20,"timestamp":1758598000100,"asks":[],"bids":[["86657.9",0],["86658.0",6]]}}"#;
        match decode(delta) {
            Incoming::Depth(p) => {
                assert!(!p.snapshot);
                assert!(p.asks.is_empty());
                assert_eq!(
                    p.bids,
                    vec![
                        Level::new(d("86657.9"), d("0")),
                        Level::new(d("86658.0"), d("6"))
                    ]
                );
            }
            _ => panic!(),
        }
    }

    #[test]
    fn public_pushes_exact() {
        match decode(br#"{"event":"fund_rate.update","data":{"instrument_id":"BTCUSDTPERP","funding_rate":"0.0001","funding_time":1758614400000,"next_funding_rate":"-3e-05","next_funding_time":1758643200000}}"#) {
            Incoming::Event(Event::SwapFundingRate(f)) => {
                assert_eq!(f.next_funding_rate, Some(d("-0.00003")));
                assert_eq!(f.funding_time, Some(TimestampMillis(1758614400000)));
            }
            _ => panic!(),
        }
        match decode(br#"{"event":"ticker.update","data":{"instrument_id":"BTCUSDTPERP","best_bid":"86658.0","best_bid_size":"124.000000","last_qty":"47.000000","volume_24h":"127958869","volume_token_24h":"127958.869","open_interest":"-","timestamp":1758598000000}}"#) {
            Incoming::Event(Event::SwapTicker(t)) => {
                assert_eq!(t.best_bid_size.unwrap().to_string(), "124.000000");
                assert_eq!(t.volume_token_24h, Some(d("127958.869")));
                assert_eq!(t.open_interest, None);
            }
            _ => panic!(),
        }
        let row = r#"{"instrument_id":"BTCUSDTPERP","last":"1"}"#;
        for frame in [
            format!("[{row},{row}]"),
            format!(r#"{{"event":"all_ticker.update","data":[{row},{row}]}}"#),
        ] {
            match decode(frame.as_bytes()) {
                Incoming::Event(Event::SwapAllTickers { tickers }) => assert_eq!(tickers.len(), 2),
                _ => panic!("{frame}"),
            }
        }
        match decode(br#"{"event":"trades.update","data":[{"instrument_id":"BTCUSDTPERP","trade_id":"1234567890123456789","direction":"4","volume":"3","price":"86658.1","trade_time":1758598000000}],"full_data":true}"#) {
            Incoming::Event(Event::SwapTrades { snapshot: true, trades }) => {
                assert_eq!(trades[0].trade_id, "1234567890123456789");
                assert_eq!(trades[0].direction, Some(crate::swap::OrderSide::CloseShort));
            }
            _ => panic!(),
        }
        match decode(br#"{"event":"mark_price.update","data":{"instrument_id":"BTCUSDTPERP","mark_price":"86737.4","timestamp":1}}"#) {
            Incoming::Event(Event::SwapMarkPrice(m)) => assert_eq!(m.mark_price, Some(d("86737.4"))),
            _ => panic!(),
        }
    }

    #[test]
    fn private_pushes_tolerant() {
        match decode(br#"{"event":"order.update","data":[{"order_id":"1557071302651875328","instrument_id":"BTCUSDTPERP","price":"20000","size":"10","filled_qty":"4","price_avg":"20000","state":1,"time_stamp":1662346006093}]}"#) {
            Incoming::Event(Event::SwapOrders { orders }) => {
                assert_eq!(orders[0].filled_qty, Some(d("4")));
                assert_eq!(orders[0].state, Some(crate::swap::OrderState::PartFilled));
            }
            _ => panic!(),
        }
        match decode(br#"{"event":"position.update","data":{"instrument_id":"BTCUSDTPERP","side":"long","size":"3","average_open_price":"20000","margin_mode":"crossed"}}"#) {
            Incoming::Event(Event::SwapPositions { positions }) => {
                assert_eq!(positions[0].position, Some(d("3")));
                assert_eq!(positions[0].avg_cost, Some(d("20000")));
            }
            _ => panic!(),
        }
        match decode(br#"{"event":"token.update","data":{"x":1}}"#) {
            Incoming::Event(Event::Unknown { channel, data, .. }) => {
                assert_eq!(
                    (channel.as_str(), data.get()),
                    ("token.update", r#"{"x":1}"#)
                )
            }
            _ => panic!(),
        }
    }
}
