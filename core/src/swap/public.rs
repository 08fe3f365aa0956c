//! Public swap market data (GET, no authentication).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{check_instrument, check_limit, public_meta};
use crate::catalog::{entry, CatalogEntry, FromParams, ParamMap};
use crate::endpoint::{Endpoint, Meta, Params};
use crate::error::Error;
use crate::types::TimestampMillis;

/// Every public swap endpoint, in documentation order.
pub(crate) static ENTRIES: &[CatalogEntry] = &[
    entry::<ServerTimeRequest>(),
    entry::<ApiWeightRequest>(),
    entry::<DepthRequest>(),
];

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/public/time`: the server's clock in milliseconds (for clock-offset estimation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerTimeRequest;

impl Endpoint for ServerTimeRequest {
    type Output = TimestampMillis;
    const META: Meta = public_meta("swap.time", "/swap/v2/public/time");
    fn encode(&self, _: &mut Params) -> Result<(), Error> {
        Ok(())
    }
}

impl FromParams for ServerTimeRequest {
    fn from_params(_: &mut ParamMap) -> Result<Self, Error> {
        Ok(ServerTimeRequest)
    }
}

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/public/api_weight`: the weight of every route, for a weight budget
/// (see [`crate::ratelimit::WeightTable`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApiWeightRequest;

impl Endpoint for ApiWeightRequest {
    type Output = Vec<RouteWeight>;
    const META: Meta = public_meta("swap.api_weight", "/swap/v2/public/api_weight");
    fn encode(&self, _: &mut Params) -> Result<(), Error> {
        Ok(())
    }
}

impl FromParams for ApiWeightRequest {
    fn from_params(_: &mut ParamMap) -> Result<Self, Error> {
        Ok(ApiWeightRequest)
    }
}

/// One route and its weight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteWeight {
    /// Request path (`/swap/v2/trade/order_place`).
    #[serde(default, with = "crate::de::string")]
    pub path: String,
    /// Weight counted per request.
    #[serde(with = "crate::de::int")]
    pub weight: u32,
}

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/public/depth`: the order book of an instrument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepthRequest {
    instrument_id: String,
    limit: Option<u32>,
}

impl DepthRequest {
    /// The book of `instrument_id` (`BTCUSDTPERP`), default 20 levels per side.
    pub fn new(instrument_id: impl Into<String>) -> Self {
        DepthRequest {
            instrument_id: instrument_id.into(),
            limit: None,
        }
    }
    /// Levels per side, 1..=100.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for DepthRequest {
    type Output = Depth;
    const META: Meta = public_meta("swap.depth", "/swap/v2/public/depth");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        check_limit(self.limit)?;
        p.push("instrument_id", &self.instrument_id);
        p.push_opt_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for DepthRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(DepthRequest {
            instrument_id: p.take_str("instrument_id")?,
            limit: p.take_opt_int("limit")?,
        })
    }
}

/// One price level `[price, amount]` (the price arrives as a string, the amount as a number;
/// either form is accepted for both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DepthLevel {
    /// Price.
    pub price: Decimal,
    /// Size in contracts.
    pub amount: Decimal,
}

impl<'de> Deserialize<'de> for DepthLevel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = DepthLevel;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a [price, amount] array")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<DepthLevel, A::Error> {
                let mut c = crate::de::Cursor::new(seq, "depth level");
                let level = DepthLevel {
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

impl Serialize for DepthLevel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&self.price.to_string())?;
        t.serialize_element(&self.amount.to_string())?;
        t.end()
    }
}

/// Answer of [`DepthRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Depth {
    /// Instrument id.
    #[serde(default, with = "crate::de::string")]
    pub instrument_id: String,
    /// Snapshot time (ms).
    #[serde(default)]
    pub timestamp: Option<TimestampMillis>,
    /// Sell levels.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub asks: Vec<DepthLevel>,
    /// Buy levels.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub bids: Vec<DepthLevel>,
}
