//! The static list of every endpoint, driving the CLI, the fuzzers, the coverage tests and the
//! docs table.
//!
//! Each entry carries the endpoint's [`Meta`] and two functions: build the typed request from a
//! map of wire parameters (`{"symbol":"btc_usdt","limit":"5"}`; values may be strings or JSON
//! numbers) and decode a response into the typed model rendered as `serde_json::Value`.

use crate::config::Config;
use crate::credentials::Credentials;
use crate::de::Unreadable;
use crate::endpoint::{build, Endpoint, Meta};
use crate::error::Error;
pub use crate::params::{element_error, FromParams, ParamMap};
pub use crate::request::{Choice, Describe, ParamInfo};
use crate::session::{Drive, ErasedCall, ErasedOutput, JsonCall, Session};
use crate::types::TimestampMillis;

/// Builds the signed request of a catalog entry.
pub type BuildFn = fn(
    ParamMap,
    &Config,
    Option<&Credentials>,
    TimestampMillis,
) -> Result<http::Request<Vec<u8>>, Error>;

/// Decodes a response of a catalog entry into its typed model, rendered as JSON.
pub type DecodeFn = fn(u16, &http::HeaderMap, &[u8]) -> Result<serde_json::Value, Error>;

/// Decodes a response of a catalog entry into its typed model, kept behind a type-erased
/// `Serialize` ([`ErasedOutput`]) for a serializer other than JSON.
pub type DecodeErasedFn = fn(u16, &http::HeaderMap, &[u8]) -> Result<ErasedOutput, Error>;

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

/// Starts a full call of a catalog entry like [`CallFn`], keeping the typed output behind a
/// type-erased `Serialize` ([`ErasedOutput`]) for a serializer other than JSON.
pub type CallErasedFn = for<'s> fn(&'s Session, ParamMap) -> Result<ErasedDynCall<'s>, Error>;

/// A type-erased call of a catalog entry whose output is the typed answer, type-erased.
pub type ErasedDynCall<'s> = Box<dyn Drive<Output = ErasedOutput> + Send + 's>;

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
    /// Decode a response into the typed answer, type-erased.
    pub decode_erased: DecodeErasedFn,
    /// Decode a response, reporting unreadable optional values.
    pub decode_report: DecodeReportFn,
    /// Start a full call.
    pub call: CallFn,
    /// Start a full call keeping the typed answer (type-erased).
    pub call_erased: CallErasedFn,
    /// The parameters, in wire order, from the endpoint's declaration (what `digifinex
    /// describe` prints).
    pub params: fn() -> Vec<ParamInfo>,
}

impl std::fmt::Debug for CatalogEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogEntry")
            .field("meta", &self.meta)
            .field("request_type", &(self.request_type)())
            .finish()
    }
}

/// Reads the request from wire parameters; an unknown parameter is refused naming the
/// endpoint's parameters (and the closest, for a typo), also when the typo made reading a known
/// parameter fail (`symbl` leaves `symbol` missing: the typo is reported).
fn read_request<E: FromParams + Describe>(mut params: ParamMap) -> Result<E, Error> {
    let infos = E::params();
    let known: Vec<&str> = infos
        .iter()
        .map(|p| p.name.as_ref())
        .filter(|n| !n.starts_with('['))
        .collect();
    match E::from_params(&mut params) {
        Ok(request) => {
            params.finish_known(&known)?;
            Ok(request)
        }
        // A known parameter is missing or wrong while an unknown one was given: the unknown
        // one is most likely the mistyped name.
        Err(e @ Error::Validation { .. }) if e.field().is_some_and(|f| known.contains(&f)) => {
            Err(params.unknown_error(&known).unwrap_or(e))
        }
        Err(e) => Err(e),
    }
}

fn build_entry<E: Endpoint + FromParams + Describe>(
    params: ParamMap,
    config: &Config,
    credentials: Option<&Credentials>,
    now: TimestampMillis,
) -> Result<http::Request<Vec<u8>>, Error> {
    let request = read_request::<E>(params)?;
    build(&request, config, credentials, now)
}

fn decode_entry<E: Endpoint>(
    status: u16,
    headers: &http::HeaderMap,
    body: &[u8],
) -> Result<serde_json::Value, Error> {
    let output = crate::endpoint::parse_endpoint::<E>(status, headers, body)?;
    render::<E>(&output, status)
}

fn decode_erased_entry<E: Endpoint>(
    status: u16,
    headers: &http::HeaderMap,
    body: &[u8],
) -> Result<ErasedOutput, Error>
where
    E::Output: Send + 'static,
{
    let output = crate::endpoint::parse_endpoint::<E>(status, headers, body)?;
    Ok(Box::new(output))
}

fn decode_report_entry<E: Endpoint>(
    status: u16,
    headers: &http::HeaderMap,
    body: &[u8],
) -> Result<(serde_json::Value, Vec<Unreadable>), Error> {
    let (output, unreadable) = crate::endpoint::parse_endpoint_report::<E>(status, headers, body)?;
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

fn call_entry<E>(session: &Session, params: ParamMap) -> Result<DynCall<'_>, Error>
where
    E: Endpoint + FromParams + Describe + Send + Sync + 'static,
    E::Output: Send,
{
    let request = read_request::<E>(params)?;
    Ok(Box::new(JsonCall(session.call_owned(request))))
}

fn call_erased_entry<E>(session: &Session, params: ParamMap) -> Result<ErasedDynCall<'_>, Error>
where
    E: Endpoint + FromParams + Describe + Send + Sync + 'static,
    E::Output: Send,
{
    let request = read_request::<E>(params)?;
    Ok(Box::new(ErasedCall(session.call_owned(request))))
}

/// The catalog entry of endpoint `E`.
pub const fn entry<E>() -> CatalogEntry
where
    E: Endpoint + FromParams + Describe + Send + Sync + 'static,
    E::Output: Send,
{
    CatalogEntry {
        meta: E::META,
        request_type: std::any::type_name::<E>,
        response_type: std::any::type_name::<E::Output>,
        build: build_entry::<E>,
        decode: decode_entry::<E>,
        decode_erased: decode_erased_entry::<E>,
        decode_report: decode_report_entry::<E>,
        call: call_entry::<E>,
        call_erased: call_erased_entry::<E>,
        params: E::params,
    }
}

/// Every endpoint, in documentation order, from the one endpoint list
/// ([`crate::endpoints::endpoints`]).
macro_rules! catalog_entries {
    ($($(#[$doc:meta])* $kind:ident $ty:ty $(=> $variant:ident |$o:ident| $ids:expr)?;)*) => {
        static ENTRIES: &[CatalogEntry] = &[$(entry::<$ty>(),)*];
    };
}

crate::endpoints::endpoints!(catalog_entries);

/// Every endpoint, in documentation order.
pub fn all() -> impl Iterator<Item = &'static CatalogEntry> {
    ENTRIES.iter()
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
        // The display path is the family's prefix and the template: matched in two parts,
        // without building it (a Python bot looks an endpoint up on every call).
        let rest = path.strip_prefix(e.meta.family.display_prefix())?;
        match_template(e.meta.path, rest).map(|vars| (e, vars))
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
