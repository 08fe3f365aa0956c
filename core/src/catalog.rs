//! The static list of every endpoint, driving the CLI, the fuzzers, the coverage tests and the
//! docs table.
//!
//! Each entry carries the endpoint's [`Meta`] and two functions: build the typed request from a
//! map of wire parameters (`{"symbol":"btc_usdt","limit":"5"}`; values may be strings or JSON
//! numbers) and decode a response into the typed model rendered as `serde_json::Value`.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde_json::value::RawValue;

use crate::config::Config;
use crate::credentials::Credentials;
use crate::de::Unreadable;
use crate::endpoint::{build, parse_body, parse_body_report, Endpoint, Meta};
use crate::error::Error;
use crate::num::parse_decimal;
use crate::session::{Drive, JsonCall, Session};
use crate::spot;
use crate::swap;
use crate::types::TimestampMillis;

/// Builds a typed request from wire parameters.
pub trait FromParams: Sized {
    /// Reads the fields this request needs; unknown keys are refused by the caller.
    fn from_params(params: &mut ParamMap) -> Result<Self, Error>;
}

/// Builds the signed request of a catalog entry.
pub type BuildFn = fn(
    ParamMap,
    &Config,
    Option<&Credentials>,
    TimestampMillis,
) -> Result<http::Request<Vec<u8>>, Error>;

/// Decodes a response of a catalog entry into its typed model, rendered as JSON.
pub type DecodeFn = fn(u16, &http::HeaderMap, &[u8]) -> Result<serde_json::Value, Error>;

/// [`DecodeFn`], also returning the optional values that could not be read and were taken as
/// absent (see [`crate::parse_body_report`]).
pub type DecodeReportFn =
    fn(u16, &http::HeaderMap, &[u8]) -> Result<(serde_json::Value, Vec<Unreadable>), Error>;

/// Starts a full call of a catalog entry (budget, signing, time sync, retries of reads; see
/// [`crate::session`]) from wire parameters; a transport drives it and gets the typed result
/// rendered as JSON.
pub type CallFn = for<'s> fn(&'s Session, ParamMap) -> Result<DynCall<'s>, Error>;

/// A type-erased call of a catalog entry.
pub type DynCall<'s> = Box<dyn Drive<Output = serde_json::Value> + Send + 's>;

/// One endpoint of the catalog.
#[derive(Clone, Copy)]
pub struct CatalogEntry {
    /// Method, path template, family, signing, idempotency, weight.
    pub meta: Meta,
    /// Name of the Rust request type.
    pub request_type: fn() -> &'static str,
    /// Name of the Rust response type.
    pub response_type: fn() -> &'static str,
    /// Build from wire parameters.
    pub build: BuildFn,
    /// Decode a response.
    pub decode: DecodeFn,
    /// Decode a response, reporting unreadable optional values.
    pub decode_report: DecodeReportFn,
    /// Start a full call.
    pub call: CallFn,
}

impl std::fmt::Debug for CatalogEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogEntry")
            .field("meta", &self.meta)
            .field("request_type", &(self.request_type)())
            .finish()
    }
}

fn build_entry<E: Endpoint + FromParams>(
    mut params: ParamMap,
    config: &Config,
    credentials: Option<&Credentials>,
    now: TimestampMillis,
) -> Result<http::Request<Vec<u8>>, Error> {
    let request = E::from_params(&mut params)?;
    params.finish()?;
    build(&request, config, credentials, now)
}

fn decode_entry<E: Endpoint>(
    status: u16,
    headers: &http::HeaderMap,
    body: &[u8],
) -> Result<serde_json::Value, Error> {
    let output = parse_body::<E::Output>(&E::META, status, headers, body)?;
    render::<E>(&output, status)
}

fn decode_report_entry<E: Endpoint>(
    status: u16,
    headers: &http::HeaderMap,
    body: &[u8],
) -> Result<(serde_json::Value, Vec<Unreadable>), Error> {
    let (output, unreadable) = parse_body_report::<E::Output>(&E::META, status, headers, body)?;
    Ok((render::<E>(&output, status)?, unreadable))
}

fn render<E: Endpoint>(output: &E::Output, status: u16) -> Result<serde_json::Value, Error> {
    serde_json::to_value(output).map_err(|e| Error::Decode {
        path: ".".to_owned(),
        type_name: std::any::type_name::<E::Output>(),
        message: format!("cannot render as JSON: {e}"),
        status,
        snippet: String::new(),
    })
}

fn call_entry<E>(session: &Session, mut params: ParamMap) -> Result<DynCall<'_>, Error>
where
    E: Endpoint + FromParams + Send + Sync + 'static,
    E::Output: Send,
{
    let request = E::from_params(&mut params)?;
    params.finish()?;
    Ok(Box::new(JsonCall(session.call_owned(request))))
}

/// The catalog entry of endpoint `E`.
pub const fn entry<E>() -> CatalogEntry
where
    E: Endpoint + FromParams + Send + Sync + 'static,
    E::Output: Send,
{
    CatalogEntry {
        meta: E::META,
        request_type: std::any::type_name::<E>,
        response_type: std::any::type_name::<E::Output>,
        build: build_entry::<E>,
        decode: decode_entry::<E>,
        decode_report: decode_report_entry::<E>,
        call: call_entry::<E>,
    }
}

/// Every endpoint, in documentation order.
pub fn all() -> impl Iterator<Item = &'static CatalogEntry> {
    spot::market::ENTRIES
        .iter()
        .chain(spot::account::ENTRIES)
        .chain(spot::order::ENTRIES)
        .chain(spot::wallet::ENTRIES)
        .chain(swap::public::ENTRIES)
        .chain(swap::account::ENTRIES)
        .chain(swap::trade::ENTRIES)
        .chain(swap::copy::ENTRIES)
}

/// Finds the endpoint for `METHOD PATH` as sent after the host (`GET /v3/order_book`,
/// `POST /v3/margin/order/new`). Returns the entry and the path variables it captured
/// (`market=margin`), which the entry's builder reads like any other parameter.
pub fn find(method: &str, path: &str) -> Option<(&'static CatalogEntry, Vec<(String, String)>)> {
    let path = path.split('?').next().unwrap_or(path);
    let path = path
        .strip_suffix('/')
        .filter(|p| !p.is_empty())
        .unwrap_or(path);
    all().find_map(|e| {
        if !e.meta.method.as_str().eq_ignore_ascii_case(method) {
            return None;
        }
        match_template(&e.meta.display_path(), path).map(|vars| (e, vars))
    })
}

fn match_template(template: &str, path: &str) -> Option<Vec<(String, String)>> {
    let mut vars = Vec::new();
    let mut t = template.split('/');
    let mut p = path.split('/');
    loop {
        match (t.next(), p.next()) {
            (None, None) => return Some(vars),
            (Some(ts), Some(ps)) => {
                if let Some(name) = ts.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    if ps.is_empty() {
                        return None;
                    }
                    vars.push((name.to_owned(), ps.to_owned()));
                } else if ts != ps {
                    return None;
                }
            }
            _ => return None,
        }
    }
}

/// One parameter value: text as typed (`k=v`), or a JSON token (`--json`, nested values).
#[derive(Debug, Clone)]
enum ParamValue {
    Text(String),
    Json(Box<RawValue>),
}

/// Wire parameters by name, consumed field by field by [`FromParams`] implementations; or, for
/// the swap batch endpoints, a JSON array body whose elements are parameter objects.
#[derive(Debug, Clone, Default)]
pub struct ParamMap {
    values: BTreeMap<String, ParamValue>,
    /// Variables captured from the path (`market=margin` of `/v3/margin/order/new`).
    path_vars: BTreeMap<String, String>,
    array: Option<Vec<Box<RawValue>>>,
}

impl ParamMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a variable captured from the path by [`find`] (`market=margin`). A parameter of the
    /// same name may also be given; it must then agree with the path (see
    /// [`ParamMap::take_market`]).
    pub fn insert_path_var(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.path_vars.insert(key.into(), value.into());
    }

    /// Adds a text parameter (as given by `k=v` on the command line).
    pub fn insert_text(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.values
            .insert(key.into(), ParamValue::Text(value.into()));
    }

    /// Adds every member of a JSON object, keeping each value's exact text.
    pub fn insert_json_object(&mut self, json: &str) -> Result<(), Error> {
        let map: BTreeMap<String, Box<RawValue>> = serde_json::from_str(json)
            .map_err(|e| Error::validation("json", format!("not a JSON object: {e}")))?;
        for (k, v) in map {
            self.values.insert(k, ParamValue::Json(v));
        }
        Ok(())
    }

    /// Adds a JSON body: the members of an object (as [`ParamMap::insert_json_object`]), or an
    /// array of parameter objects (the swap batch endpoints), read by
    /// [`ParamMap::take_array_body`].
    pub fn insert_json(&mut self, json: &str) -> Result<(), Error> {
        if json.trim_start().starts_with('[') {
            let items: Vec<Box<RawValue>> = serde_json::from_str(json)
                .map_err(|e| Error::validation("json", format!("not a JSON array: {e}")))?;
            self.array = Some(items);
            Ok(())
        } else {
            self.insert_json_object(json)
        }
    }

    /// Takes the JSON array body, one parameter map per element (each must be an object).
    pub fn take_array_body(&mut self) -> Result<Vec<ParamMap>, Error> {
        let items = self
            .array
            .take()
            .ok_or_else(|| Error::validation("body", "must be a JSON array of objects"))?;
        items
            .iter()
            .enumerate()
            .map(|(i, raw)| {
                let mut m = ParamMap::new();
                m.insert_json_object(raw.get())
                    .map_err(|e| element_error(i, e))?;
                Ok(m)
            })
            .collect()
    }

    /// Whether `key` is present.
    pub fn contains(&self, key: &str) -> bool {
        self.values.contains_key(key)
    }

    /// Takes the text of `key`: a JSON string is unescaped, a number keeps its digits;
    /// `null` is absent.
    pub fn take_opt_str(&mut self, key: &'static str) -> Result<Option<String>, Error> {
        match self.values.remove(key) {
            None => Ok(None),
            Some(ParamValue::Text(s)) => Ok(Some(s)),
            Some(ParamValue::Json(raw)) => {
                let text = raw.get();
                match text.as_bytes().first() {
                    Some(b'"') => serde_json::from_str::<String>(text)
                        .map(Some)
                        .map_err(|e| Error::validation(key, e.to_string())),
                    Some(b'n') => Ok(None),
                    Some(b'-' | b'0'..=b'9' | b't' | b'f') => Ok(Some(text.to_owned())),
                    _ => Err(Error::validation(key, "expected a string or a number")),
                }
            }
        }
    }

    /// Takes a required text parameter.
    pub fn take_str(&mut self, key: &'static str) -> Result<String, Error> {
        self.take_opt_str(key)?
            .ok_or_else(|| Error::validation(key, "is required"))
    }

    /// Takes the raw JSON text of `key` (arrays and objects, e.g. the batch `list`); a text
    /// parameter is returned as given.
    pub fn take_opt_raw(&mut self, key: &'static str) -> Option<String> {
        match self.values.remove(key)? {
            ParamValue::Text(s) => Some(s),
            ParamValue::Json(raw) => Some(raw.get().to_owned()),
        }
    }

    /// Takes an optional exact decimal.
    pub fn take_opt_decimal(&mut self, key: &'static str) -> Result<Option<Decimal>, Error> {
        match self.take_opt_str(key)? {
            None => Ok(None),
            Some(s) => parse_decimal(&s)
                .map(Some)
                .map_err(|e| Error::validation(key, format!("{s:?}: {e}"))),
        }
    }

    /// Takes a required exact decimal.
    pub fn take_decimal(&mut self, key: &'static str) -> Result<Decimal, Error> {
        self.take_opt_decimal(key)?
            .ok_or_else(|| Error::validation(key, "is required"))
    }

    /// Takes an optional integer of type `T`.
    pub fn take_opt_int<T: std::str::FromStr>(
        &mut self,
        key: &'static str,
    ) -> Result<Option<T>, Error> {
        match self.take_opt_str(key)? {
            None => Ok(None),
            Some(s) => s.trim().parse::<T>().map(Some).map_err(|_| {
                Error::validation(
                    key,
                    format!("{s:?} is not a valid {}", std::any::type_name::<T>()),
                )
            }),
        }
    }

    /// Takes a required integer of type `T`.
    pub fn take_int<T: std::str::FromStr>(&mut self, key: &'static str) -> Result<T, Error> {
        self.take_opt_int(key)?
            .ok_or_else(|| Error::validation(key, "is required"))
    }

    /// Takes an optional flag: `1`/`0`/`true`/`false`.
    pub fn take_opt_flag(&mut self, key: &'static str) -> Result<Option<bool>, Error> {
        match self.take_opt_str(key)?.as_deref().map(str::trim) {
            None => Ok(None),
            Some("1" | "true") => Ok(Some(true)),
            Some("0" | "false") => Ok(Some(false)),
            Some(other) => Err(Error::validation(
                key,
                format!("{other:?} is not a flag (0, 1, true or false)"),
            )),
        }
    }

    /// Takes the `{market}` path variable.
    ///
    /// DESIGN: the `{market}` endpoints also send `market` as a parameter with the path's value
    /// (venue-notes.md); a request never sends a path and a parameter that disagree, so a
    /// `market` parameter given beside the path variable must name the same market, and any
    /// other value is refused on field `market`.
    pub fn take_market(&mut self) -> Result<spot::Market, Error> {
        let path = self.path_vars.remove("market");
        let param = self.take_opt_str("market")?;
        let text = match (path, param) {
            (Some(p), Some(q)) if !p.eq_ignore_ascii_case(&q) => {
                return Err(Error::validation(
                    "market",
                    format!("{q:?} disagrees with the path's market {p:?}"),
                ))
            }
            (Some(p), _) => p,
            (None, Some(q)) => q,
            (None, None) => return Err(Error::validation("market", "is required")),
        };
        spot::Market::parse("market", &text)
    }

    /// Refuses any parameter no field consumed (a typo would otherwise be dropped silently).
    pub fn finish(self) -> Result<(), Error> {
        if self.array.is_some() {
            return Err(Error::validation(
                "body",
                "this endpoint takes a JSON object, not an array",
            ));
        }
        match self
            .values
            .into_keys()
            .chain(self.path_vars.into_keys())
            .next()
        {
            None => Ok(()),
            Some(k) => Err(Error::validation(k, "is not a parameter of this endpoint")),
        }
    }
}

/// Names the array element in a validation error: `price` becomes `[3].price`.
pub fn element_error(index: usize, e: Error) -> Error {
    match e {
        Error::Validation { field, reason } => Error::Validation {
            field: format!("[{index}].{field}").into(),
            reason,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_matching_captures_market() {
        assert_eq!(
            match_template("/v3/{market}/order/new", "/v3/margin/order/new"),
            Some(vec![("market".to_owned(), "margin".to_owned())])
        );
        assert_eq!(
            match_template("/v3/{market}/order", "/v3/spot/order/new"),
            None
        );
        assert_eq!(match_template("/v3/ping", "/v3/ping"), Some(vec![]));
        assert_eq!(match_template("/v3/{market}/order", "/v3//order"), None);
    }

    #[test]
    fn param_map_reads_text_and_json() {
        let mut p = ParamMap::new();
        p.insert_text("limit", "5");
        p.insert_json_object(r#"{"price":0.10,"name":"a\"b","n":null}"#)
            .unwrap();
        assert_eq!(p.take_opt_int::<u32>("limit").unwrap(), Some(5));
        assert_eq!(p.take_decimal("price").unwrap().to_string(), "0.10");
        assert_eq!(p.take_str("name").unwrap(), "a\"b");
        assert_eq!(p.take_opt_str("n").unwrap(), None);
        assert!(p.take_str("missing").is_err());
        p.finish().unwrap();
        let mut p = ParamMap::new();
        p.insert_text("limt", "5");
        let e = p.finish().unwrap_err();
        assert!(matches!(e, Error::Validation { ref field, .. } if field == "limt"));
    }
}
