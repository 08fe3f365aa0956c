//! Public market data (no authentication).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::catalog::{entry, CatalogEntry, FromParams, ParamMap};
use crate::endpoint::{Endpoint, Family, Meta, Method, Params};
use crate::error::Error;
use crate::spot::{check_range, check_symbol};
use crate::types::TimestampSecs;

pub(crate) const ENTRIES: &[CatalogEntry] = &[entry::<Ping>(), entry::<OrderBookRequest>()];

const fn public(name: &'static str, path: &'static str) -> Meta {
    Meta {
        name,
        family: Family::Spot,
        method: Method::Get,
        path,
        signed: false,
        idempotent: true,
        success_code: 0,
        weight: None,
    }
}

// ---------------------------------------------------------------------------------------------

/// `GET /v3/ping`: checks that the service answers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ping;

/// Answer of [`Ping`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pong {
    /// The service's message (`pong`).
    #[serde(default, with = "crate::de::string")]
    pub msg: String,
}

impl Endpoint for Ping {
    type Output = Pong;
    const META: Meta = public("spot.ping", "/ping");
    fn encode(&self, _: &mut Params) -> Result<(), Error> {
        Ok(())
    }
}

impl FromParams for Ping {
    fn from_params(_: &mut ParamMap) -> Result<Self, Error> {
        Ok(Ping)
    }
}

// ---------------------------------------------------------------------------------------------

/// `GET /v3/order_book`: the order book of one pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderBookRequest {
    symbol: String,
    limit: Option<u32>,
}

impl OrderBookRequest {
    /// The book of `symbol` (`btc_usdt`), default depth 10.
    pub fn new(symbol: impl Into<String>) -> Self {
        OrderBookRequest {
            symbol: symbol.into(),
            limit: None,
        }
    }
    /// Levels per side, 1..=150.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for OrderBookRequest {
    type Output = OrderBook;
    const META: Meta = public("spot.order_book", "/order_book");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_symbol("symbol", &self.symbol)?;
        if let Some(l) = self.limit {
            check_range("limit", l, 1, 150)?;
        }
        p.push("symbol", &self.symbol);
        p.push_opt_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for OrderBookRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(OrderBookRequest {
            symbol: p.take_str("symbol")?,
            limit: p.take_opt_int("limit")?,
        })
    }
}

/// One price level `[price, size]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Level {
    /// Price.
    pub price: Decimal,
    /// Size in base currency.
    pub amount: Decimal,
}

impl<'de> Deserialize<'de> for Level {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Level;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a [price, amount] array")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Level, A::Error> {
                let mut c = crate::de::Cursor::new(seq, "price level");
                let level = Level {
                    price: c.decimal()?,
                    amount: c.decimal()?,
                };
                c.finish()?;
                Ok(level)
            }
        }
        d.deserialize_seq(V)
    }
}

impl Serialize for Level {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&self.price.to_string())?;
        t.serialize_element(&self.amount.to_string())?;
        t.end()
    }
}

/// Answer of [`OrderBookRequest`]: bids best (highest) first, asks as the server orders them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderBook {
    /// Buy levels.
    #[serde(default)]
    pub bids: Vec<Level>,
    /// Sell levels.
    #[serde(default)]
    pub asks: Vec<Level>,
    /// Server time of the snapshot (seconds).
    #[serde(default)]
    pub date: Option<TimestampSecs>,
}
