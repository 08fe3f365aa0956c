//! Rate-limit usage reported by the swap v2 response headers, and the per-route weight table of
//! `GET /swap/v2/public/api_weight`.
//!
//! Public swap responses carry `ip-weight-minute-use` and `ip-weight-minute-remain`; private ones
//! carry `account-weight-minute-use`, `account-weight-minute-remain`, `apikey-weight-minute-use`
//! and `apikey-weight-minute-remain`. The session reads them with
//! [`RateLimitUsage::from_headers`] from every answer, keeps its swap budgets in step with them,
//! and returns them with the response.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// One route and its weight: an element of the answer of `GET /swap/v2/public/api_weight`
/// ([`crate::swap::ApiWeightRequest`]), keyed by `path`.
///
/// DESIGN: both fields are required: `path` is the row's key, and `weight` is the row's only
/// value (a route listed without its weight tells a budget nothing, like a candle without its
/// prices).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct RouteWeight {
    /// Request path (`/swap/v2/trade/order_place`).
    #[serde(with = "crate::de::text")]
    pub path: String,
    /// Weight counted per request.
    #[serde(with = "crate::de::req")]
    pub weight: u32,
}

impl RouteWeight {
    /// `weight` for requests to `path` (a table built by hand: [`WeightTable::new`]).
    pub fn new(path: impl Into<String>, weight: u32) -> Self {
        RouteWeight {
            path: path.into(),
            weight,
        }
    }
}

/// Weight used and remaining in the current minute, for one limit (IP, account or API key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[non_exhaustive]
pub struct WeightUsage {
    /// Weight used this minute, when reported.
    pub used: Option<u64>,
    /// Weight remaining this minute, when reported.
    pub remaining: Option<u64>,
}

impl WeightUsage {
    fn is_empty(&self) -> bool {
        self.used.is_none() && self.remaining.is_none()
    }
}

/// Every rate-limit header of one response; limits the response did not report are `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[non_exhaustive]
pub struct RateLimitUsage {
    /// Per-IP usage (public swap endpoints).
    pub ip: Option<WeightUsage>,
    /// Per-account usage (private swap endpoints).
    pub account: Option<WeightUsage>,
    /// Per-API-key usage (private swap endpoints).
    pub api_key: Option<WeightUsage>,
}

impl RateLimitUsage {
    /// Reads the usage headers; a missing or malformed value is `None` (never an error: the
    /// headers are advisory).
    pub fn from_headers(headers: &http::HeaderMap) -> Self {
        // One pass over the (few) headers: no name is formatted or hashed per response, which
        // matters on a loopback round trip (see the transports' `roundtrip` benches). As with
        // `HeaderMap::get`, only the first value of a repeated header counts.
        // seen[limit][0 = use, 1 = remain]: None until the header is met, then its value.
        let mut seen: [[Option<Option<u64>>; 2]; 3] = [[None; 2]; 3];
        for (name, value) in headers {
            let name = name.as_str();
            let (row, rest) = if let Some(rest) = name.strip_prefix("ip-") {
                (0, rest)
            } else if let Some(rest) = name.strip_prefix("account-") {
                (1, rest)
            } else if let Some(rest) = name.strip_prefix("apikey-") {
                (2, rest)
            } else {
                continue;
            };
            let col = match rest.strip_prefix("weight-minute-") {
                Some("use") => 0,
                Some("remain") => 1,
                _ => continue,
            };
            let Some(cell) = seen.get_mut(row).and_then(|r| r.get_mut(col)) else {
                continue;
            };
            if cell.is_none() {
                *cell = Some(value.to_str().ok().and_then(|v| v.trim().parse().ok()));
            }
        }
        let usage = |[used, remaining]: [Option<Option<u64>>; 2]| {
            let u = WeightUsage {
                used: used.flatten(),
                remaining: remaining.flatten(),
            };
            (!u.is_empty()).then_some(u)
        };
        let [ip, account, api_key] = seen;
        RateLimitUsage {
            ip: usage(ip),
            account: usage(account),
            api_key: usage(api_key),
        }
    }

    /// The smallest remaining weight over the reported limits (the one that binds first).
    pub fn min_remaining(&self) -> Option<u64> {
        [self.ip, self.account, self.api_key]
            .iter()
            .flatten()
            .filter_map(|u| u.remaining)
            .min()
    }
}

/// Route -> weight, from `GET /swap/v2/public/api_weight`, for a weight budget.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WeightTable {
    weights: HashMap<String, u32>,
}

impl WeightTable {
    /// Builds the table from the decoded route weights (a later duplicate path wins).
    pub fn new(routes: &[RouteWeight]) -> Self {
        WeightTable {
            weights: routes
                .iter()
                .map(|r| (normalise(&r.path).to_owned(), r.weight))
                .collect(),
        }
    }

    /// The weight of a request path (`/swap/v2/trade/order_place`, with or without a query
    /// string or trailing `/`), when the table lists it.
    pub fn weight(&self, path: &str) -> Option<u32> {
        self.weights.get(normalise(path)).copied()
    }

    /// The weight of `path`, or `default` for a route the table does not list.
    pub fn weight_or(&self, path: &str, default: u32) -> u32 {
        self.weight(path).unwrap_or(default)
    }

    /// Number of routes listed.
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }
}

fn normalise(path: &str) -> &str {
    let path = path.split('?').next().unwrap_or(path).trim();
    match path.strip_suffix('/') {
        Some(p) if !p.is_empty() => p,
        _ => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_headers_are_parsed_per_limit() {
        let mut h = http::HeaderMap::new();
        h.insert("ip-weight-minute-use", "12".parse().unwrap());
        h.insert("ip-weight-minute-remain", "1188".parse().unwrap());
        h.insert("apikey-weight-minute-use", " 7 ".parse().unwrap());
        h.insert("account-weight-minute-remain", "x".parse().unwrap());
        let u = RateLimitUsage::from_headers(&h);
        assert_eq!(
            u.ip,
            Some(WeightUsage {
                used: Some(12),
                remaining: Some(1188)
            })
        );
        assert_eq!(
            u.api_key,
            Some(WeightUsage {
                used: Some(7),
                remaining: None
            })
        );
        assert_eq!(u.account, None);
        assert_eq!(u.min_remaining(), Some(1188));
        assert_eq!(
            RateLimitUsage::from_headers(&http::HeaderMap::new()),
            RateLimitUsage::default()
        );
    }

    /// The straightforward reading (`HeaderMap::get` per name), as an independent reference.
    fn by_get(h: &http::HeaderMap) -> RateLimitUsage {
        let read = |prefix: &str| {
            let num = |suffix: &str| {
                h.get(format!("{prefix}-weight-minute-{suffix}").as_str())?
                    .to_str()
                    .ok()?
                    .trim()
                    .parse::<u64>()
                    .ok()
            };
            let u = WeightUsage {
                used: num("use"),
                remaining: num("remain"),
            };
            (!u.is_empty()).then_some(u)
        };
        RateLimitUsage {
            ip: read("ip"),
            account: read("account"),
            api_key: read("apikey"),
        }
    }

    #[test]
    fn one_pass_reading_matches_lookup_by_name() {
        let names = [
            "ip-weight-minute-use",
            "ip-weight-minute-remain",
            "account-weight-minute-use",
            "account-weight-minute-remain",
            "apikey-weight-minute-use",
            "apikey-weight-minute-remain",
            "ip-weight-minute-other",
            "user-weight-minute-use",
            "content-type",
        ];
        let values = [
            "3",
            " 40 ",
            "x",
            "",
            "18446744073709551615",
            "18446744073709551616",
        ];
        // Every header present or not, each with one of the values; repeated names appended.
        for mask in 0u32..(1 << names.len()) {
            let mut h = http::HeaderMap::new();
            for (i, name) in names.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    let v = values[(mask as usize + i) % values.len()];
                    h.append(*name, v.parse().unwrap());
                    if (mask >> i) % 3 == 0 {
                        h.append(*name, "77".parse().unwrap());
                    }
                }
            }
            assert_eq!(RateLimitUsage::from_headers(&h), by_get(&h), "{h:?}");
        }
    }

    #[test]
    fn weight_table_matches_paths() {
        let t = WeightTable::new(&[
            RouteWeight {
                path: "/swap/v2/trade/order_place".into(),
                weight: 5,
            },
            RouteWeight {
                path: "/swap/v2/public/depth/".into(),
                weight: 2,
            },
        ]);
        assert_eq!(t.len(), 2);
        assert_eq!(t.weight("/swap/v2/trade/order_place"), Some(5));
        assert_eq!(
            t.weight("/swap/v2/public/depth?instrument_id=BTCUSDTPERP"),
            Some(2)
        );
        assert_eq!(t.weight("/swap/v2/public/ticker"), None);
        assert_eq!(t.weight_or("/swap/v2/public/ticker", 1), 1);
    }
}
