//! The endpoint description and the two pure functions at the heart of the core:
//! [`build`] (endpoint -> signed `http::Request`) and [`parse`] (`http::Response` -> typed output).

use std::borrow::Cow;
use std::time::Duration;

use http::header::{HeaderName, HeaderValue, CONTENT_TYPE, RETRY_AFTER};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::credentials::Credentials;
use crate::de::reader;
use crate::de::Unreadable;
use crate::error::{snippet, ApiCode, ApiError, Error};
use crate::sign;
pub use crate::types::Family;
use crate::types::TimestampMillis;

/// HTTP method of an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Method {
    /// GET: parameters in the query string.
    Get,
    /// POST: parameters in the body.
    Post,
}

impl Method {
    /// `GET` or `POST`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
    fn to_http(self) -> http::Method {
        match self {
            Method::Get => http::Method::GET,
            Method::Post => http::Method::POST,
        }
    }
}

/// Type-level data describing an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    /// Stable name (`spot.order_book`).
    pub name: &'static str,
    /// API family.
    pub family: Family,
    /// HTTP method.
    pub method: Method,
    /// Path template relative to the family base: `/{market}/order/new` for spot (appended to
    /// the `/v3` base URL), `/swap/v2/trade/order_place` for swap (appended to the host).
    pub path: &'static str,
    /// Whether the request carries the authentication headers.
    pub signed: bool,
    /// Whether repeating the request is harmless (reads), so it may be retried automatically.
    pub idempotent: bool,
    /// The envelope's success code (0, or 200 for `/currencies`, `/deposit/*`, `/withdraw/*`).
    pub success_code: i64,
    /// Request weight, where the documentation states it.
    pub weight: Option<u32>,
}

impl Meta {
    /// A public endpoint: unsigned, idempotent when it is a `GET`, success code 0, no declared
    /// weight. Refine with [`Meta::signed`], [`Meta::idempotent`], [`Meta::success_code`] and
    /// [`Meta::weight`].
    pub const fn new(
        family: Family,
        method: Method,
        name: &'static str,
        path: &'static str,
    ) -> Self {
        Meta {
            name,
            family,
            method,
            path,
            signed: false,
            idempotent: matches!(method, Method::Get),
            success_code: 0,
            weight: None,
        }
    }

    /// The same endpoint, signed (it carries the authentication headers).
    pub const fn signed(mut self) -> Self {
        self.signed = true;
        self
    }

    /// The same endpoint, declared idempotent (retried automatically) or not.
    pub const fn idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = idempotent;
        self
    }

    /// The same endpoint with another success code (200 for `/currencies`, `/deposit/*`,
    /// `/withdraw/*`).
    pub const fn success_code(mut self, code: i64) -> Self {
        self.success_code = code;
        self
    }

    /// The same endpoint with a declared request weight.
    pub const fn weight(mut self, weight: u32) -> Self {
        self.weight = Some(weight);
        self
    }

    /// The path as shown to users and matched by the CLI (`/v3/{market}/order/new`).
    pub fn display_path(&self) -> String {
        format!("{}{}", self.family.display_prefix(), self.path)
    }
}

/// A typed request: data plus validation. The generic [`build`] and [`parse`] do the rest.
pub trait Endpoint: Clone + Send + Sync + 'static {
    /// The typed result.
    type Output: DeserializeOwned + Serialize;

    /// The endpoint's description.
    const META: Meta;

    /// The concrete path relative to the family base; differs from the template only for
    /// endpoints with a `{market}` segment.
    fn path(&self) -> Cow<'static, str> {
        Cow::Borrowed(Self::META.path)
    }

    /// Appends the concrete path to `out` (the template with its `{market}` segment filled).
    fn write_path(&self, out: &mut String) {
        out.push_str(&self.path());
    }

    /// Validates the request and writes its parameters in transmission order: query or form
    /// parameters through [`Params::push`], or, for a swap POST, the JSON body through
    /// [`Params::set_json_body`].
    fn encode(&self, params: &mut Params) -> Result<(), Error>;
}

/// Parameters being written for a request, in transmission order, already form-urlencoded,
/// plus the JSON body of a swap POST.
///
/// DESIGN (issue 28): the form is kept as bytes (always UTF-8: only text and ASCII digits are
/// written), so that numbers, the URL and the signature are written without a UTF-8 check.
pub struct Params {
    text: Vec<u8>,
    json: Option<Vec<u8>>,
    now: TimestampMillis,
}

impl Params {
    /// An empty parameter list for a request built at `now` (used by time-window validation).
    pub fn new(now: TimestampMillis) -> Self {
        Params {
            text: Vec::with_capacity(96),
            json: None,
            now,
        }
    }

    /// Sets the JSON body of a swap POST (serialised once; these bytes are signed and sent).
    pub fn set_json_body(&mut self, body: crate::json::JsonWriter) {
        self.json = Some(body.into_bytes());
    }

    /// The build time.
    pub fn now(&self) -> TimestampMillis {
        self.now
    }

    /// The encoded text (`a=1&b=2`).
    pub fn as_str(&self) -> &str {
        // Only `str` text and ASCII digits are written: always UTF-8.
        std::str::from_utf8(&self.text).unwrap_or_default()
    }

    fn key(&mut self, key: &str) {
        if !self.text.is_empty() {
            self.text.push(b'&');
        }
        self.encode(key);
        self.text.push(b'=');
    }

    /// Appends `key=value`, percent-encoding both (`application/x-www-form-urlencoded`).
    pub fn push(&mut self, key: &str, value: &str) -> &mut Self {
        self.key(key);
        self.encode(value);
        self
    }

    /// Appends `text` form-urlencoded; text that needs no escaping (the usual symbol, side or
    /// id) is copied as is.
    fn encode(&mut self, text: &str) {
        let plain = text
            .bytes()
            .all(|b| FORM_PLAIN.get(usize::from(b)) == Some(&true));
        if plain {
            self.text.extend_from_slice(text.as_bytes());
        } else {
            for part in form_urlencoded::byte_serialize(text.as_bytes()) {
                self.text.extend_from_slice(part.as_bytes());
            }
        }
    }

    /// Appends a value whose `Display` form needs no escaping (numbers, decimals in plain
    /// notation).
    pub fn push_display(&mut self, key: &str, value: impl std::fmt::Display) -> &mut Self {
        use std::io::Write;
        self.key(key);
        // Writing to a Vec cannot fail.
        let _ = write!(self.text, "{value}");
        self
    }

    /// Appends a decimal in plain notation (`0.01`, `30000`).
    pub fn push_decimal(&mut self, key: &str, value: &rust_decimal::Decimal) -> &mut Self {
        self.key(key);
        crate::text::push_decimal(&mut self.text, value);
        self
    }

    /// Appends an unsigned integer.
    pub fn push_u64(&mut self, key: &str, value: u64) -> &mut Self {
        self.key(key);
        self.text
            .extend_from_slice(crate::text::uint(value, &mut [0; 20]));
        self
    }

    /// Appends an integer.
    pub fn push_i64(&mut self, key: &str, value: i64) -> &mut Self {
        self.key(key);
        if value < 0 {
            self.text.push(b'-');
        }
        self.text
            .extend_from_slice(crate::text::uint(value.unsigned_abs(), &mut [0; 20]));
        self
    }

    /// Appends `key=value` when `value` is present.
    pub fn push_opt(&mut self, key: &str, value: Option<&str>) -> &mut Self {
        if let Some(v) = value {
            self.push(key, v);
        }
        self
    }

    /// Appends a `Display` value when present.
    pub fn push_opt_display<T: std::fmt::Display>(
        &mut self,
        key: &str,
        value: Option<T>,
    ) -> &mut Self {
        if let Some(v) = value {
            self.push_display(key, v);
        }
        self
    }

    /// Consumes the list, returning the encoded text.
    pub fn into_string(self) -> String {
        String::from_utf8(self.text)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

impl std::fmt::Debug for Params {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Params")
            .field("text", &self.as_str())
            .field("json", &self.json.as_deref().map(String::from_utf8_lossy))
            .field("now", &self.now)
            .finish()
    }
}

/// The bytes `application/x-www-form-urlencoded` leaves as they are (`A-Z a-z 0-9 * - . _`).
// Bound: `b < 256`.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const FORM_PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || matches!(c, b'*' | b'-' | b'.' | b'_');
        b += 1;
    }
    table
};

/// Room for the hex signature and the timestamp's digits after the URL.
const SIGNED_ROOM: usize = 64 + 20;

const ACCESS_KEY: HeaderName = HeaderName::from_static("access-key");
const ACCESS_SIGN: HeaderName = HeaderName::from_static("access-sign");
const ACCESS_TIMESTAMP: HeaderName = HeaderName::from_static("access-timestamp");
const ACCESS_RECV_WINDOW: HeaderName = HeaderName::from_static("access-recv-window");
const FORM: HeaderValue = HeaderValue::from_static("application/x-www-form-urlencoded");
const JSON: HeaderValue = HeaderValue::from_static("application/json");

/// Builds the signed HTTP request for `endpoint` at time `now`.
///
/// Validation runs first, so a rule violation returns [`Error::Validation`] before any request
/// exists. Public endpoints carry no authentication headers. Signed requests carry `ACCESS-KEY`,
/// `ACCESS-SIGN` (lowercase hex HMAC-SHA256) and `ACCESS-TIMESTAMP`:
/// * spot v3: the signature covers the transmitted parameter text (query, form body, or
///   `query&body`), the timestamp is in seconds, and `ACCESS-RECV-WINDOW` is added when
///   configured; POST bodies are `application/x-www-form-urlencoded`;
/// * swap v2: the signature covers `timestamp + METHOD + path?query + body`, the timestamp is in
///   milliseconds; POST bodies are `application/json`, an object (`{}` when there are no
///   parameters) or an array for the batch endpoints, serialised once and signed verbatim.
///
/// # Examples
///
/// A swap limit order, signed at a fixed time (pass your clock's time plus the server offset;
/// [`crate::session::Session`] does that for you):
///
/// ```
/// use digifinex_core::swap::{OrderSide, OrderSpec, PlaceOrderRequest};
/// use digifinex_core::{build, Config, Credentials, Price, Size, TimestampMillis};
///
/// let order = OrderSpec::limit("BTCUSDTPERP", OrderSide::OpenLong, Size::ONE, "30000".parse::<Price>()?);
/// let creds = Credentials::new("my-key", "my-secret");
/// let now = TimestampMillis(1_700_000_000_000);
/// let request = build(&PlaceOrderRequest::new(order), &Config::default(), Some(&creds), now)?;
/// assert_eq!(request.method(), "POST");
/// assert_eq!(request.uri(), "https://openapi.digifinex.com/swap/v2/trade/order_place");
/// assert_eq!(request.headers()["content-type"], "application/json");
/// assert_eq!(request.headers()["access-timestamp"], "1700000000000"); // swap: milliseconds
/// assert_eq!(request.headers()["access-sign"].len(), 64); // hex HMAC-SHA256 of the sent bytes
/// // The key and the signature are marked sensitive (kept out of Debug and the HTTP logs):
/// assert!(request.headers()["access-key"].is_sensitive());
/// assert!(request.headers()["access-sign"].is_sensitive());
/// assert!(!request.headers()["access-timestamp"].is_sensitive());
///
/// // Validation runs before anything is built, naming the field:
/// let bad = digifinex_core::spot::OrderBookRequest::new("btc_usdt").limit(500);
/// let err = build(&bad, &Config::default(), None, now).unwrap_err();
/// assert!(matches!(&err, digifinex_core::Error::Validation { field, .. } if field == "limit"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn build<E: Endpoint>(
    endpoint: &E,
    config: &Config,
    credentials: Option<&Credentials>,
    now: TimestampMillis,
) -> Result<http::Request<Vec<u8>>, Error> {
    let mut params = Params::new(now);
    endpoint.encode(&mut params)?;
    assemble(
        &E::META,
        params,
        &|url: &mut String| endpoint.write_path(url),
        config,
        credentials,
        now,
    )
}

/// The part of [`build`] that does not depend on the endpoint's type: URL, headers and
/// signature from the encoded parameters.
///
/// DESIGN: compiled once, not once per endpoint (`build` is instantiated for every endpoint
/// the core calls itself, about forty), which keeps the crate's release build short; the one
/// dynamic call writes the path.
fn assemble(
    meta: &Meta,
    params: Params,
    write_path: &dyn Fn(&mut String),
    config: &Config,
    credentials: Option<&Credentials>,
    now: TimestampMillis,
) -> Result<http::Request<Vec<u8>>, Error> {
    let credentials = match (meta.signed, credentials) {
        (true, None) => {
            return Err(Error::validation(
                "credentials",
                format!(
                    "{} is a private endpoint and needs an API key: pass \
                     `Some(&Credentials::new(key, secret))` to `build`, or give the client one \
                     with its builder's `.credentials(..)`",
                    meta.name
                ),
            ))
        }
        (true, Some(c)) => Some(c),
        (false, _) => None,
    };
    let Params { text, json, .. } = params;
    let (base, query, body) = match (meta.family, meta.method) {
        (Family::Spot, _) if json.is_some() => {
            return Err(Error::validation(
                "body",
                format!("{} is a spot endpoint and takes no JSON body", meta.name),
            ))
        }
        (Family::Spot, Method::Get) => (config.spot_base_url.as_str(), text, Vec::new()),
        (Family::Spot, Method::Post) => (config.spot_base_url.as_str(), Vec::new(), text),
        (Family::Swap, Method::Get) if json.is_some() => {
            return Err(Error::validation(
                "body",
                format!("{} is a GET endpoint and takes no body", meta.name),
            ))
        }
        (Family::Swap, Method::Get) => (config.swap_base_url.as_str(), text, Vec::new()),
        (Family::Swap, Method::Post) => (
            config.swap_base_url.as_str(),
            text,
            json.unwrap_or_else(|| b"{}".to_vec()),
        ),
    };
    // DESIGN (issue 28): the URL, the signature and the timestamp are written to one buffer,
    // which the URI and both header values then share: one allocation instead of three (the
    // allocations and their frees were a third of the cost besides the HMAC).
    let mut buf = String::with_capacity(
        base.len()
            .saturating_add(meta.path.len())
            .saturating_add(8)
            .saturating_add(query.len())
            .saturating_add(1)
            .saturating_add(if credentials.is_some() {
                SIGNED_ROOM
            } else {
                0
            }),
    );
    buf.push_str(base);
    let path_start = buf.len();
    write_path(&mut buf);
    let mut buf = buf.into_bytes();
    if !query.is_empty() {
        buf.push(b'?');
        buf.extend_from_slice(&query);
    }
    let url_end = buf.len();
    if let Some(c) = credentials {
        // Spot signs in seconds, swap in milliseconds.
        let stamp = match meta.family {
            Family::Spot => now.as_secs(),
            Family::Swap => now.as_millis(),
        };
        let mut digits = [0; 20];
        let owned;
        let timestamp = match u64::try_from(stamp) {
            Ok(v) => crate::text::uint(v, &mut digits),
            Err(_) => {
                owned = stamp.to_string();
                owned.as_bytes()
            }
        };
        let signature = match meta.family {
            Family::Spot => c.sign_hex(&sign::spot_signed_bytes(&query, &body))?,
            Family::Swap => {
                // The signed path is the request path after the host: `/swap/v2/...?query`.
                let path_and_query = buf.get(path_start..url_end).unwrap_or_default();
                c.sign_hex(&[
                    timestamp,
                    meta.method.as_str().as_bytes(),
                    path_and_query,
                    &body,
                ])?
            }
        };
        buf.extend_from_slice(&signature);
        buf.extend_from_slice(timestamp);
    }
    let buf = bytes::Bytes::from(buf);
    let part = |from: usize, to: usize| {
        if from <= to && to <= buf.len() {
            Ok(buf.slice(from..to))
        } else {
            Err(Error::validation(
                "url",
                "the request's text is out of bounds",
            ))
        }
    };
    let uri = http::Uri::from_maybe_shared(part(0, url_end)?).map_err(|e| {
        let url = String::from_utf8_lossy(buf.get(..url_end).unwrap_or_default());
        Error::validation("url", format!("cannot form a request for {url:?}: {e}"))
    })?;
    // At most five headers: one allocation (none for a public GET), values from bytes already
    // at hand.
    let mut headers = if meta.method == Method::Post || credentials.is_some() {
        http::HeaderMap::with_capacity(5)
    } else {
        http::HeaderMap::new()
    };
    let mut add = |name: HeaderName, value: HeaderValue| {
        headers
            .try_append(name, value)
            .map(|_| ())
            .map_err(|e| Error::validation("headers", e.to_string()))
    };
    if meta.method == Method::Post {
        add(
            CONTENT_TYPE,
            match meta.family {
                Family::Spot => FORM,
                Family::Swap => JSON,
            },
        )?;
    }
    if let Some(c) = credentials {
        let value = |field: &'static str, from: usize, to: usize| {
            HeaderValue::from_maybe_shared(part(from, to)?)
                .map_err(|_| Error::validation(field, "not a valid header value"))
        };
        let sign_end = url_end.saturating_add(64);
        // The key and the signature are sensitive (`HeaderValue::is_sensitive`): kept out of
        // `http`'s Debug, and out of the HTTP libraries' logs by the transports.
        add(ACCESS_KEY, c.key_header()?)?;
        let mut sign = value("signature", url_end, sign_end)?;
        sign.set_sensitive(true);
        add(ACCESS_SIGN, sign)?;
        add(ACCESS_TIMESTAMP, value("timestamp", sign_end, buf.len())?)?;
        if let (Family::Spot, Some(w)) = (meta.family, config.recv_window) {
            add(ACCESS_RECV_WINDOW, HeaderValue::from(w))?;
        }
    }
    let mut req = http::Request::new(body);
    *req.method_mut() = meta.method.to_http();
    *req.uri_mut() = uri;
    *req.headers_mut() = headers;
    Ok(req)
}

/// Parses a response for endpoint `E`: the typed output, or the [`Error`] the answer means
/// (the rules are those of [`parse_body`]).
///
/// # Examples
///
/// ```
/// use digifinex_core::{http, parse, spot, Error, ErrorKind};
///
/// let body: &[u8] = br#"{"bids":[[30000,"0.5"]],"asks":[[30010,1]],"code":0}"#;
/// let answer = http::Response::builder().status(200).body(body)?;
/// let book = parse::<spot::OrderBookRequest>(&answer)?;
/// assert_eq!(book.spread().map(|s| s.to_string()).as_deref(), Some("10"));
///
/// // An error code in the envelope is an error whatever the HTTP status.
/// let body: &[u8] = br#"{"code":20009}"#;
/// let answer = http::Response::builder().status(200).body(body)?;
/// let err = parse::<spot::PlaceOrderRequest>(&answer).unwrap_err();
/// assert_eq!(err.api_code(), Some(20009));
/// assert!(matches!(err, Error::Api(_)));
/// assert_eq!(err.kind(), ErrorKind::InvalidRequest);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse<E: Endpoint>(response: &http::Response<&[u8]>) -> Result<E::Output, Error> {
    parse_endpoint::<E>(
        response.status().as_u16(),
        response.headers(),
        response.body(),
    )
}

/// An endpoint's family as a constant the compiler branches on.
///
/// DESIGN: `if <E as OfFamily>::SPOT` leaves the other family's wire shape uninstantiated (a
/// `match` on `E::META.family` is decided only when the program runs, so both would be
/// compiled for every answer type): half the decoders in the crate's build.
trait OfFamily {
    const SPOT: bool;
}

impl<E: Endpoint> OfFamily for E {
    const SPOT: bool = matches!(E::META.family, Family::Spot);
}

/// [`parse_body`] for endpoint `E`, with only its family's wire shape compiled.
pub(crate) fn parse_endpoint<E: Endpoint>(
    status: u16,
    headers: &http::HeaderMap,
    body: &[u8],
) -> Result<E::Output, Error> {
    let (value, unreadable) = parse_endpoint_report::<E>(status, headers, body)?;
    if !unreadable.is_empty() {
        warn_unreadable(&E::META, &unreadable);
    }
    Ok(value)
}

/// [`parse_body_report`] for endpoint `E`, with only its family's wire shape compiled.
pub(crate) fn parse_endpoint_report<E: Endpoint>(
    status: u16,
    headers: &http::HeaderMap,
    body: &[u8],
) -> Result<(E::Output, Vec<Unreadable>), Error> {
    let meta = &E::META;
    let (value, unreadable) = if <E as OfFamily>::SPOT {
        parse_wire::<E::Output, E::Output>(meta, status, headers, body, |v| v)?
    } else {
        parse_wire::<reader::Data<E::Output>, E::Output>(meta, status, headers, body, |v| v.0)?
    };
    let list = if unreadable == 0 {
        Vec::new()
    } else if <E as OfFamily>::SPOT {
        unreadable_paths::<E::Output>(body, unreadable)
    } else {
        unreadable_paths::<reader::Data<E::Output>>(body, unreadable)
    };
    Ok((value, list))
}

/// Logs the optional values taken as absent (`tracing` warnings, target
/// `digifinex_core::decode`).
fn warn_unreadable(meta: &Meta, list: &[Unreadable]) {
    for u in list {
        tracing::warn!(
            target: "digifinex_core::decode",
            endpoint = meta.name,
            path = %u.path,
            problem = %u.problem,
            "unreadable optional value taken as absent"
        );
    }
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(default, with = "crate::de::opt_int")]
    code: Option<i64>,
    #[serde(default, alias = "message", with = "crate::de::opt_string")]
    msg: Option<String>,
}

/// Parses a response body for an endpoint described by `meta` into `T`.
///
/// Spot bodies carry the payload beside `code` (`{"bids":..,"code":0}`) and decode into `T`
/// directly; swap bodies carry it in `data` (`{"code":0,"data":..}`), and `T` is the type of
/// `data`.
///
/// DESIGN: an acknowledgement without `data` (`{"code":0}`, seen live) or with `"data":null`
/// decodes as an empty list for list outputs, `None` for `Option` outputs, `()` for unit
/// outputs, and an acknowledgement with every field `None` for acknowledgement structs whose
/// fields are all optional (each endpoint documents its case); an output that needs a value (a
/// placed order's id) reports `data` as missing.
///
/// Order of decisions: an HTTP 3xx is [`Error::Redirect`] (never followed, never a result, even
/// with a success body); an envelope `code` other than the success code is an [`Error::Api`]
/// whatever the HTTP status (the swap API answers errors with HTTP 400 and
/// `{"code":400002,"msg":"invalid InstrumentId"}`: code and message are kept); a body that is not
/// an envelope is [`Error::RateLimited`] on 429, [`Error::Banned`] on 403 and
/// [`Error::HttpStatus`] on any other non-2xx status (the swap API's plain-text 404 for an unknown
/// path is `HttpStatus` 404, kind [`crate::ErrorKind::NotFound`]); a success envelope that does
/// not match `T`, or a 2xx body without a `code`, is [`Error::Decode`] naming the JSON path.
///
/// Optional values that cannot be read are taken as absent (see [decoding](crate#decoding)) and logged as
/// `tracing` warnings (target `digifinex_core::decode`) with their JSON path;
/// [`parse_body_report`] returns them instead.
pub fn parse_body<T: DeserializeOwned>(
    meta: &Meta,
    status: u16,
    headers: &http::HeaderMap,
    body: &[u8],
) -> Result<T, Error> {
    let (value, unreadable) = parse_family::<T>(meta, status, headers, body)?;
    if unreadable > 0 {
        warn_unreadable(meta, &unreadable_values::<T>(meta, body, unreadable));
    }
    Ok(value)
}

/// [`parse_body`], returning the optional values that could not be read and were taken as
/// absent (at most [`MAX_REPORTED`], in body order) instead of logging them.
pub fn parse_body_report<T: DeserializeOwned>(
    meta: &Meta,
    status: u16,
    headers: &http::HeaderMap,
    body: &[u8],
) -> Result<(T, Vec<Unreadable>), Error> {
    let (value, unreadable) = parse_family::<T>(meta, status, headers, body)?;
    let list = if unreadable > 0 {
        unreadable_values::<T>(meta, body, unreadable)
    } else {
        Vec::new()
    };
    Ok((value, list))
}

/// Most unreadable values [`parse_body_report`] names in one answer.
pub const MAX_REPORTED: u32 = 16;

fn parse_family<T: DeserializeOwned>(
    meta: &Meta,
    status: u16,
    headers: &http::HeaderMap,
    body: &[u8],
) -> Result<(T, u32), Error> {
    match meta.family {
        Family::Spot => parse_wire::<T, T>(meta, status, headers, body, |v| v),
        Family::Swap => parse_wire::<reader::Data<T>, T>(meta, status, headers, body, |v| v.0),
    }
}

/// The JSON paths of the first `count` (at most [`MAX_REPORTED`]) unreadable optional values of
/// a body that decoded: slow, run only when there are some.
fn unreadable_values<T: DeserializeOwned>(meta: &Meta, body: &[u8], count: u32) -> Vec<Unreadable> {
    match meta.family {
        Family::Spot => unreadable_paths::<T>(body, count),
        Family::Swap => unreadable_paths::<reader::Data<T>>(body, count),
    }
}

fn unreadable_paths<W: DeserializeOwned>(body: &[u8], count: u32) -> Vec<Unreadable> {
    let mut out = Vec::new();
    for n in 0..count.min(MAX_REPORTED) {
        // Report mode: the n-th unreadable value fails, and the path-tracking decode names it.
        let _mode = crate::de::unreadable::fail_at(n);
        match reader::decode::<W>(body) {
            Err(failure) => {
                let mut problem = failure.message;
                if let Some(at) = problem.find(" at line ") {
                    problem.truncate(at);
                }
                out.push(Unreadable {
                    path: failure.path,
                    problem,
                });
            }
            Ok(_) => break,
        }
    }
    out
}

fn parse_wire<W: DeserializeOwned, T>(
    meta: &Meta,
    status: u16,
    headers: &http::HeaderMap,
    body: &[u8],
    unwrap: fn(W) -> T,
) -> Result<(T, u32), Error> {
    if (300..400).contains(&status) {
        return Err(redirect(status, headers));
    }
    let (decoded, code, unreadable) = reader::decode_with_code::<W>(body);
    match decoded {
        Ok(v) if code == Some(meta.success_code) => Ok((unwrap(v), unreadable)),
        decoded => {
            let is_envelope = failure(meta, status, headers, body, code)?;
            match decoded {
                Ok(v) if is_envelope => Ok((unwrap(v), unreadable)),
                Ok(_) => Err(Error::Decode {
                    path: "code".to_owned(),
                    type_name: std::any::type_name::<T>(),
                    message: "missing envelope field `code`".to_owned(),
                    status,
                    snippet: snippet(body),
                }),
                Err(e) => Err(decode_error(body, status, e, std::any::type_name::<T>())),
            }
        }
    }
}

/// A redirect is never an answer, whatever its body says (see [`Error::Redirect`]).
fn redirect(status: u16, headers: &http::HeaderMap) -> Error {
    Error::Redirect {
        status,
        location: headers
            .get(http::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
    }
}

/// The slow path of [`parse_wire`], for every answer that is not a success envelope that
/// decoded: the error the envelope code or the HTTP status means, else whether the body is an
/// envelope (has a success code). `code` is the envelope code the reader noted, if any.
///
/// DESIGN: not generic, so that it is compiled once rather than once per answer type.
fn failure(
    meta: &Meta,
    status: u16,
    headers: &http::HeaderMap,
    body: &[u8],
    code: Option<i64>,
) -> Result<bool, Error> {
    let retry_after = retry_after(headers);
    // Only an object is an envelope: serde would also read `Envelope` from an array (`[0]` as
    // code 0).
    let envelope = body
        .trim_ascii_start()
        .starts_with(b"{")
        .then(|| serde_json::from_slice::<Envelope>(body).ok())
        .flatten();
    let code = code.or(envelope.as_ref().and_then(|e| e.code));
    if let Some(c) = code {
        if c != meta.success_code {
            return Err(Error::Api(ApiError {
                family: meta.family,
                code: ApiCode::from_family(meta.family, c),
                message: envelope.and_then(|e| e.msg),
                status,
                retry_after,
            }));
        }
    }
    let is_envelope = code.is_some();
    if !is_envelope || !(200..300).contains(&status) {
        match status {
            429 => {
                return Err(Error::RateLimited {
                    status,
                    retry_after,
                    snippet: snippet(body),
                })
            }
            403 => {
                return Err(Error::Banned {
                    status,
                    snippet: snippet(body),
                })
            }
            s if !(200..300).contains(&s) => {
                return Err(Error::HttpStatus {
                    status,
                    snippet: snippet(body),
                })
            }
            _ => {}
        }
    }
    Ok(is_envelope)
}

/// The decode error of a body whose decode failed at `failure`'s JSON path.
fn decode_error(
    body: &[u8],
    status: u16,
    failure: reader::Failure,
    type_name: &'static str,
) -> Error {
    Error::Decode {
        path: failure.path,
        type_name,
        message: failure.message,
        status,
        snippet: snippet(body),
    }
}

/// `retry-after` in seconds (the only form the exchange documents).
fn retry_after(headers: &http::HeaderMap) -> Option<Duration> {
    let v = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let d = crate::de::num::parse_decimal(v).ok()?;
    // Checked: a huge value (`99999999999999999999999999`) must not overflow the decimal.
    let ms = d.checked_mul(rust_decimal::Decimal::ONE_THOUSAND)?.trunc();
    u64::try_from(ms).ok().map(Duration::from_millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_encode_like_form_urlencoded() {
        for value in [
            "btc_usdt", "a b", "x&y=z", "1.5", "*-._~", "é", "", "A-Z_0.9*",
        ] {
            let mut p = Params::new(TimestampMillis(0));
            p.push("k y", value);
            let want: String = form_urlencoded::Serializer::new(String::new())
                .append_pair("k y", value)
                .finish();
            assert_eq!(p.as_str(), want, "{value}");
        }
    }
}
