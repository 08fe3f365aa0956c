//! The one error type, the exchange's code tables and their classification.

use std::borrow::Cow;
use std::time::Duration;

use crate::types::Family;

/// Declares a closed table of integer codes with an `Unknown(code)` arm (the exchange's error
/// codes): `Copy`, decoded from numbers only.
macro_rules! code_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $code:expr ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this library does not know yet.
            Unknown(i64),
        }

        impl $name {
            /// The wire code.
            pub fn code(self) -> i64 {
                match self {
                    $( $name::$variant => $code, )+
                    $name::Unknown(c) => c,
                }
            }
            /// The variant for a wire code.
            pub fn from_code(code: i64) -> Self {
                match code {
                    $( c if c == $code => $name::$variant, )+
                    c => $name::Unknown(c),
                }
            }
        }
    };
}

/// Everything that can go wrong between a typed request and a typed result.
///
/// Match on [`Error::kind`] to decide what to do; the variants keep the raw facts (exchange code,
/// HTTP status, a snippet of the body, the JSON path that failed to decode).
///
/// # Examples
///
/// Deciding what to do with a failed call (here an answer the venue gives to an order worth
/// less than the pair's minimum):
///
/// ```
/// use digifinex_core::{http, parse, spot, Error, ErrorKind};
///
/// let body: &[u8] = br#"{"code":20010}"#;
/// let answer = http::Response::builder().status(200).body(body)?;
/// let err = parse::<spot::PlaceOrderRequest>(&answer).unwrap_err();
/// let advice = match err.kind() {
///     ErrorKind::OutcomeUnknown => "look at open orders before placing it again",
///     ErrorKind::RateLimit | ErrorKind::Ban => "wait `retry_after()`, then retry",
///     ErrorKind::InvalidRequest => "fix the order: retrying cannot help",
///     _ if err.is_retryable() => "retry later",
///     _ => "give up and report",
/// };
/// assert_eq!(advice, "fix the order: retrying cannot help");
/// assert_eq!(err.api_code(), Some(20010));
/// assert!(!err.is_retryable());
/// println!("{err}"); // the code, its meaning and the kind, in one line
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A request parameter broke a documented rule; nothing was built or sent.
    Validation {
        /// The parameter (as named on the wire, or `list[3].price` for nested values).
        field: Cow<'static, str>,
        /// Whether it is invalid, missing or not a parameter of the endpoint at all.
        kind: ValidationKind,
        /// What is wrong with it (for [`ValidationKind::Missing`]: when it is required, or
        /// empty; for [`ValidationKind::Unknown`]: the closest name and the ones the endpoint
        /// takes).
        reason: String,
    },
    /// The exchange answered with an error code in its JSON envelope (whatever the HTTP status).
    Api(ApiError),
    /// An HTTP error status with a body that is not an exchange envelope (proxy page, empty body).
    HttpStatus {
        /// HTTP status code.
        status: u16,
        /// The start of the body (at most 256 bytes, lossy UTF-8).
        snippet: String,
    },
    /// HTTP 429: the request weight limit was crossed; wait `retry_after` before the next request.
    RateLimited {
        /// HTTP status code (429).
        status: u16,
        /// The server's `retry-after`, when it sent one.
        retry_after: Option<Duration>,
        /// The start of the body.
        snippet: String,
    },
    /// HTTP 403 without an exchange envelope: the IP, account or key is banned for a while.
    Banned {
        /// HTTP status code (403).
        status: u16,
        /// The start of the body.
        snippet: String,
    },
    /// The body is JSON with a success code (or no code) but does not match the expected shape.
    Decode {
        /// JSON path of the failing value (`data[3].price`), `.` for the whole body.
        path: String,
        /// The Rust type being decoded.
        type_name: &'static str,
        /// What serde reported.
        message: String,
        /// HTTP status code.
        status: u16,
        /// The start of the body.
        snippet: String,
    },
    /// The request could not be delivered or its answer not read: connection refused, DNS,
    /// TLS, timeout, connection lost. Only reads are retried automatically.
    Transport {
        /// What failed, by the phase it failed in (see [`TransportErrorKind`]).
        kind: TransportErrorKind,
        /// The transport's description.
        message: String,
        /// The transport's own error (`ureq::Error`, `hyper_util` or `std::io::Error`), kept as
        /// this error's `source()`.
        source: Option<BoxError>,
    },
    /// The answer was a redirect (HTTP 3xx). It is never followed: a redirect would carry the
    /// signed headers to another host and return that host's answer as the exchange's. A
    /// redirect means the base URL or a proxy in between is wrong. For a state-changing request
    /// it is an unknown outcome (a 303 means "processed, see other"; see
    /// [`crate::policy::settle`]).
    Redirect {
        /// HTTP status (301, 302, 303, 307, 308, ...).
        status: u16,
        /// The `Location` header, when present and readable.
        location: Option<String>,
    },
    /// The client's own weight budget (see [`crate::budget`]) would have to wait longer than
    /// the session allows before sending; nothing was sent. Retry after `retry_after`.
    BudgetExhausted {
        /// Which API's budget.
        family: crate::types::Family,
        /// How long until the request's weight fits.
        retry_after: Duration,
    },
    /// The session knows the API is banning this client until `until` (after repeated spot
    /// rate-limit violations, see [`crate::budget::BanSchedule`]); nothing was sent. Retry after
    /// `until`.
    BanActive {
        /// Which API.
        family: crate::types::Family,
        /// When the ban ends (local time plus the server offset, ms).
        until: crate::types::TimestampMillis,
    },
    /// A request that changes state (placing or cancelling an order, a transfer, a withdrawal)
    /// failed after its bytes may have reached the exchange (timeout, connection lost, 5xx, an
    /// unreadable answer): it may or may not have been applied. It is never re-sent
    /// automatically; look at the account (open orders, history) before deciding.
    OutcomeUnknown {
        /// HTTP method of the request.
        method: String,
        /// Full URL of the request (with query).
        url: String,
        /// The request body as sent (form or JSON text; it carries no secret).
        body: String,
        /// The endpoint's stable name ([`crate::Meta::name`], e.g. `spot.order_new`): what
        /// [`crate::reconcile::Unknown::from_error`] rebuilds the typed write from.
        endpoint: &'static str,
        /// When the request was built, from its `ACCESS-TIMESTAMP` header (spot seconds as
        /// milliseconds, swap milliseconds; server time as the session estimated it); `None`
        /// for an unsigned request. The start of the reconciliation window.
        built_at: Option<crate::types::TimestampMillis>,
        /// The failure that left the outcome unknown (also this error's `source()`).
        cause: Box<Error>,
        /// What the client knew before it sent the write (the ids its session had placed or
        /// seen, a snapshot of the write's evidence), set by the clients; `None` when built by
        /// the core alone. [`crate::reconcile`] excludes these ids from the write's results.
        prior: Option<Box<Prior>>,
        /// The typed request that was sent (set by the session's call): reconciliation takes
        /// the write from it ([`crate::reconcile::Write::from_request`]) instead of parsing
        /// the URL and body back; `None` when the error was built from the HTTP request alone.
        request: Option<Box<TypedRequest>>,
    },
    /// The order breaks a rule of its market (precision, minimum, permission, open-value cap),
    /// found before sending with [`crate::rules`]; nothing was sent. The rule error names the
    /// field, the venue's code for the same refusal and the nearest valid values.
    Rule(Box<crate::refusal::RuleError>),
}

/// The typed request of an [`Error::OutcomeUnknown`]: any endpoint's request value, taken
/// back with [`TypedRequest::downcast_ref`] (shared, cheap to clone).
#[derive(Clone)]
pub struct TypedRequest {
    value: std::sync::Arc<dyn std::any::Any + Send + Sync>,
    type_name: &'static str,
}

impl TypedRequest {
    /// `request`, typed.
    pub fn new<E: std::any::Any + Send + Sync>(request: E) -> Self {
        TypedRequest {
            value: std::sync::Arc::new(request),
            type_name: std::any::type_name::<E>(),
        }
    }

    /// The request, if it is an `E`.
    pub fn downcast_ref<E: std::any::Any>(&self) -> Option<&E> {
        self.value.downcast_ref::<E>()
    }

    /// The request's Rust type (`digifinex_core::spot::order::PlaceOrderRequest`).
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }
}

impl std::fmt::Debug for TypedRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TypedRequest({})", self.type_name)
    }
}

/// Two typed requests are equal when they share the same value (the same unknown outcome).
impl PartialEq for TypedRequest {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.value, &other.value)
    }
}

/// What a client knew before it sent a write whose outcome became unknown: carried by
/// [`Error::OutcomeUnknown`] so that reconciling it ([`crate::reconcile`]) can exclude every
/// record that existed before the write.
///
/// DESIGN: the clients fill it in (the core's call cannot see their id memory or a snapshot
/// read before the call); a transport of one's own may leave it `None`, and reconciliation
/// then knows only what [`crate::reconcile::Options`] says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Prior {
    /// Ids of records (orders, transfers, withdrawals, plans) that are not the write's result:
    /// ids placed by other writes, ids seen before the write was built.
    pub known_ids: std::collections::BTreeSet<String>,
    /// Whether `known_ids` list *every* record of the write's evidence set that existed just
    /// before the write was built (a complete snapshot: no list came back full). Then a record
    /// that is not known was created after the snapshot.
    pub complete: bool,
    /// With `complete`: the earliest creation time (server, ms) the snapshot's lists covered
    /// (its history reads start there). A reconciliation whose window starts earlier cannot
    /// rely on the snapshot being complete (`None`: no limit stated).
    pub complete_from: Option<crate::types::TimestampMillis>,
    /// For `swap.position_margin`: the position's margin read just before the write.
    pub position_margin: Option<rust_decimal::Decimal>,
    /// The reads the snapshot took and their declared weight (0 without a snapshot).
    pub snapshot_reads: u32,
    /// The declared weight of the snapshot's reads.
    pub snapshot_weight: u32,
}

impl Prior {
    /// Nothing known.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `ids` to [`Prior::known_ids`].
    pub fn with_known_ids<I: IntoIterator<Item = S>, S: Into<String>>(mut self, ids: I) -> Self {
        self.known_ids.extend(ids.into_iter().map(Into::into));
        self
    }

    /// Merges `other` in: the union of the ids; complete when either is; `other`'s position
    /// margin when this has none; the snapshot costs added.
    pub fn merge(&mut self, other: &Prior) {
        self.known_ids.extend(other.known_ids.iter().cloned());
        if other.complete && !self.complete {
            self.complete = true;
            self.complete_from = other.complete_from;
        }
        if self.position_margin.is_none() {
            self.position_margin = other.position_margin;
        }
        self.snapshot_reads = self.snapshot_reads.saturating_add(other.snapshot_reads);
        self.snapshot_weight = self.snapshot_weight.saturating_add(other.snapshot_weight);
    }
}

impl From<crate::refusal::RuleError> for Error {
    fn from(e: crate::refusal::RuleError) -> Self {
        Error::Rule(Box::new(e))
    }
}

/// What an [`Error::Validation`] says of its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ValidationKind {
    /// The value breaks a documented rule (the reason says which).
    Invalid,
    /// A required parameter is absent (the reason says when it is required, or is empty when
    /// it always is).
    Missing,
    /// The endpoint takes no parameter of this name (the reason names the closest one and
    /// those it takes).
    Unknown,
}

/// One line per error; a cause is shown after a colon and is also the error's `source()`.
///
/// A validation error reads by its [`ValidationKind`]: `invalid `field`: reason`, an absent
/// required parameter `missing required parameter `price` for a limit order`, and a parameter
/// the endpoint does not take `unknown parameter `limt`: did you mean `limit`? (this endpoint
/// takes: symbol, limit)`.
impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Validation {
                field,
                kind,
                reason,
            } => {
                let (head, sep) = match kind {
                    ValidationKind::Invalid => ("invalid", ": "),
                    ValidationKind::Missing => ("missing required parameter", " "),
                    ValidationKind::Unknown => ("unknown parameter", ": "),
                };
                write!(f, "{head} `{field}`")?;
                if reason.is_empty() {
                    Ok(())
                } else {
                    write!(f, "{sep}{reason}")
                }
            }
            Error::Api(e) => write!(f, "{e}"),
            Error::HttpStatus { status, snippet } => {
                write!(f, "HTTP {status} without an exchange response: {snippet:?}")
            }
            Error::RateLimited {
                status,
                retry_after,
                ..
            } => write!(f, "rate limited (HTTP {status}){}", fmt_retry(retry_after)),
            Error::Banned { status, snippet } => {
                write!(f, "banned by the exchange (HTTP {status}): {snippet:?}")
            }
            Error::Decode {
                path,
                type_name,
                message,
                status,
                snippet,
            } => write!(
                f,
                "cannot decode {type_name} at `{path}`: {message} (HTTP {status}, body {snippet:?})"
            ),
            Error::Transport { kind, message, .. } => {
                write!(f, "transport error ({kind}): {message}")
            }
            Error::Redirect { status, location } => write!(
                f,
                "HTTP {status} redirect to {} not followed",
                location.as_deref().unwrap_or("(no location)")
            ),
            Error::BudgetExhausted {
                family,
                retry_after,
            } => write!(
                f,
                "{family} weight budget exhausted: nothing sent; retry after {} ms",
                retry_after.as_millis()
            ),
            Error::BanActive { family, until } => write!(
                f,
                "{family} API banned until {} ms (repeated rate-limit violations): nothing sent",
                until.0
            ),
            Error::OutcomeUnknown {
                method, url, cause, ..
            } => write!(f, "outcome unknown for {method} {url}: {cause}"),
            Error::Rule(e) => write!(f, "refused before sending: {e}"),
        }
    }
}

/// `source()`: a transport error's own error, and an unknown outcome's cause (an [`Error`],
/// so `downcast_ref::<Error>()` finds it).
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Transport {
                source: Some(e), ..
            } => Some(e.as_ref()),
            Error::OutcomeUnknown { cause, .. } => Some(cause.as_ref()),
            _ => None,
        }
    }
}

/// A transport's own error, kept as the `source()` of [`Error::Transport`].
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What failed in the transport layer, by the phase it failed in.
///
/// DESIGN: a transport decides the phase from where it was when it failed, not from the error's
/// text: before any request byte could have been written (resolving the host, connecting, the
/// TLS handshake, a proxy's refusal) the failure is [`TransportErrorKind::Connect`] or
/// [`TransportErrorKind::InvalidRequest`], and the request was certainly not sent; once writing
/// may have begun (write, wait, read) it is [`TransportErrorKind::Timeout`],
/// [`TransportErrorKind::ConnectionLost`] or [`TransportErrorKind::Other`], and a
/// state-changing request then has an unknown outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportErrorKind {
    /// No request byte was written: resolving, connecting, the TLS handshake or a proxy failed
    /// (a timeout in those phases too). Nothing was sent.
    Connect,
    /// A timeout expired after the request may have been sent.
    Timeout,
    /// The connection failed or closed while sending or before the answer was read.
    ConnectionLost,
    /// The URL or request could not be used by the transport (nothing was sent).
    InvalidRequest,
    /// Any other transport failure.
    Other,
}

impl TransportErrorKind {
    /// Whether the request's bytes may have reached the server.
    pub fn may_have_been_sent(self) -> bool {
        !matches!(
            self,
            TransportErrorKind::Connect | TransportErrorKind::InvalidRequest
        )
    }
}

impl std::fmt::Display for TransportErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TransportErrorKind::Connect => "connect",
            TransportErrorKind::Timeout => "timeout",
            TransportErrorKind::ConnectionLost => "connection lost",
            TransportErrorKind::InvalidRequest => "invalid request",
            TransportErrorKind::Other => "other",
        })
    }
}

fn fmt_retry(d: &Option<Duration>) -> String {
    match d {
        Some(d) => format!(", retry after {} ms", d.as_millis()),
        None => String::new(),
    }
}

/// What kind of failure an [`Error`] is: the question a trading bot asks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Key, signature, permission, IP whitelist or expiry problem.
    Auth,
    /// The request timestamp is outside the server's window: resynchronise the clock.
    Clock,
    /// Too many requests: back off.
    RateLimit,
    /// Banned for a while (request-weight ban, API trading ban).
    Ban,
    /// The request itself is wrong (parameters, precision, minimums); do not retry unchanged.
    InvalidRequest,
    /// Not enough balance.
    InsufficientFunds,
    /// The order, withdrawal or position does not exist.
    NotFound,
    /// Trading, transfer or withdrawal is suspended for this pair, currency or account.
    Suspended,
    /// The exchange failed internally; a retry may succeed.
    Server,
    /// The answer was a redirect, which is never followed: the base URL or a proxy is wrong.
    Redirect,
    /// The response could not be understood.
    Decode,
    /// The network failed (connect, timeout, connection lost).
    Network,
    /// A state-changing request may or may not have been applied: check before acting.
    OutcomeUnknown,
    /// An exchange code this library does not know.
    Unknown,
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ErrorKind::Auth => "auth",
            ErrorKind::Clock => "clock",
            ErrorKind::RateLimit => "rate limit",
            ErrorKind::Ban => "ban",
            ErrorKind::InvalidRequest => "invalid request",
            ErrorKind::InsufficientFunds => "insufficient funds",
            ErrorKind::NotFound => "not found",
            ErrorKind::Suspended => "suspended",
            ErrorKind::Server => "server",
            ErrorKind::Redirect => "redirect",
            ErrorKind::Decode => "decode",
            ErrorKind::Network => "network",
            ErrorKind::OutcomeUnknown => "outcome unknown",
            ErrorKind::Unknown => "unknown",
        })
    }
}

/// An error code returned by the exchange in its JSON envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApiError {
    /// Which API answered.
    pub family: Family,
    /// The typed code (its raw value is [`ApiCode::code`]).
    pub code: ApiCode,
    /// The message field of the body (`msg` or `message`), when present.
    pub message: Option<String>,
    /// HTTP status of the response.
    pub status: u16,
    /// `retry-after` sent with the response, when present.
    pub retry_after: Option<Duration>,
}

impl ApiError {
    /// The error `code` of `family`, answered with HTTP `status`, without a message or a
    /// `retry-after` (set those fields when there are: an error built by hand, in a test or a
    /// mock).
    pub fn new(family: Family, code: ApiCode, status: u16) -> Self {
        ApiError {
            family,
            code,
            message: None,
            status,
            retry_after: None,
        }
    }
}

impl std::error::Error for ApiError {}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} API error {}: {}",
            self.family,
            self.code.code(),
            self.code.meaning()
        )?;
        if let Some(m) = self
            .message
            .as_deref()
            .filter(|m| !repeats(self.code.meaning(), m))
        {
            write!(f, " ({m})")?;
        }
        write!(f, " [HTTP {}]", self.status)
    }
}

/// Whether the venue's `message` only repeats the documented `meaning` (`signature mismatch`
/// beside `signature mismatch`, `InvalidSign` beside `InvalidSign: signature mismatch`), so that
/// an error says it once: compared by letters and digits, without case.
fn repeats(meaning: &str, message: &str) -> bool {
    let words = |s: &str| {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (meaning, message) = (words(meaning), words(message));
    message.is_empty() || meaning.contains(&message)
}

/// The exchange's code, typed per API family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ApiCode {
    /// A spot/margin v3 code.
    Spot(SpotCode),
    /// A swap v2 (and copy trading) code.
    Swap(SwapCode),
}

impl ApiCode {
    /// The raw numeric code.
    pub fn code(self) -> i64 {
        match self {
            ApiCode::Spot(c) => c.code(),
            ApiCode::Swap(c) => c.code(),
        }
    }
    /// The documented meaning.
    pub fn meaning(self) -> &'static str {
        match self {
            ApiCode::Spot(c) => c.meaning(),
            ApiCode::Swap(c) => c.meaning(),
        }
    }
    /// The classification.
    pub fn kind(self) -> ErrorKind {
        match self {
            ApiCode::Spot(c) => c.kind(),
            ApiCode::Swap(c) => c.kind(),
        }
    }
    /// Types a raw code for a family.
    pub fn from_family(family: Family, code: i64) -> Self {
        match family {
            Family::Spot => ApiCode::Spot(SpotCode::from_code(code)),
            Family::Swap => ApiCode::Swap(SwapCode::from_code(code)),
        }
    }
}

code_enum! {
    /// Spot/margin v3 error codes (`docs/protocol.md`, "Spot codes").
    pub enum SpotCode {
        /// 10001 wrong request method.
        WrongMethod = 10001,
        /// 10002 invalid API key.
        InvalidApiKey = 10002,
        /// 10003 signature mismatch.
        SignatureMismatch = 10003,
        /// 10004 illegal request parameters.
        IllegalParameters = 10004,
        /// 10005 request frequency limit exceeded.
        FrequencyLimit = 10005,
        /// 10006 not authorized for this request.
        Unauthorized = 10006,
        /// 10007 IP address not whitelisted.
        IpNotWhitelisted = 10007,
        /// 10008 timestamp outside the window.
        InvalidTimestamp = 10008,
        /// 10009 endpoint unknown or ACCESS-KEY missing.
        UnknownEndpointOrMissingKey = 10009,
        /// 10011 API key expired.
        ApiKeyExpired = 10011,
        /// 20002 trading of this pair suspended.
        PairSuspended = 20002,
        /// 20007 price precision error.
        PricePrecision = 20007,
        /// 20008 amount precision error.
        AmountPrecision = 20008,
        /// 20009 amount below minimum.
        AmountBelowMinimum = 20009,
        /// 20010 order value below minimum.
        ValueBelowMinimum = 20010,
        /// 20011 insufficient balance.
        InsufficientBalance = 20011,
        /// 20012 invalid trade type.
        InvalidTradeType = 20012,
        /// 20013 order not found.
        OrderNotFound = 20013,
        /// 20014 invalid date format.
        InvalidDateFormat = 20014,
        /// 20015 queried date range exceeds the limit.
        DateRangeTooLarge = 20015,
        /// 20018 API trading banned by the system.
        ApiTradingBanned = 20018,
        /// 20019 wrong pair symbol.
        WrongSymbol = 20019,
        /// 20020 trading rules violated; temporarily banned.
        TradingRulesViolated = 20020,
        /// 20021 invalid currency.
        InvalidCurrency = 20021,
        /// 20022 end time before start time.
        EndBeforeStart = 20022,
        /// 20023 invalid transfer type.
        InvalidTransferType = 20023,
        /// 20024 invalid amount.
        InvalidAmount = 20024,
        /// 20025 currency not transferable now.
        NotTransferable = 20025,
        /// 20026 transfer amount exceeds balance.
        TransferExceedsBalance = 20026,
        /// 20027 abnormal account status.
        AbnormalAccount = 20027,
        /// 20028 account on transfer blacklist.
        TransferBlacklisted = 20028,
        /// 20029 transfer exceeds daily limit.
        TransferDailyLimit = 20029,
        /// 20030 no position on this pair.
        NoPosition = 20030,
        /// 20031 batch order limit.
        BatchLimit = 20031,
        /// 20032 withdrawal restricted.
        WithdrawalRestricted = 20032,
        /// 20033 wrong withdrawal id.
        WrongWithdrawalId = 20033,
        /// 20034 withdrawals closed for this currency.
        WithdrawalsClosed = 20034,
        /// 20035 withdrawal amount limit.
        WithdrawalAmountLimit = 20035,
        /// 20036 withdrawal cancellation failed.
        WithdrawalCancelFailed = 20036,
        /// 20037 address, tag or chain not in the withdrawal management list.
        AddressNotManaged = 20037,
        /// 20038 withdrawal address not whitelisted.
        AddressNotWhitelisted = 20038,
        /// 20039 cannot cancel in the current status.
        CannotCancelInStatus = 20039,
        /// 20040 withdrawing too often.
        WithdrawingTooOften = 20040,
        /// 20041 daily withdrawal quota exceeded.
        WithdrawalDailyQuota = 20041,
        /// 20042 pair does not support API trading.
        PairNotApiTradable = 20042,
        /// 50000 system error.
        SystemError = 50000,
    }
}

impl SpotCode {
    /// The documented meaning of the code.
    pub fn meaning(self) -> &'static str {
        use SpotCode::*;
        match self {
            WrongMethod => "wrong request method",
            InvalidApiKey => "invalid API key",
            SignatureMismatch => "signature mismatch",
            IllegalParameters => "illegal request parameters",
            FrequencyLimit => "request frequency limit exceeded",
            Unauthorized => "not authorized for this request",
            IpNotWhitelisted => "IP address not whitelisted",
            InvalidTimestamp => "timestamp invalid (outside window)",
            UnknownEndpointOrMissingKey => "endpoint unknown or ACCESS-KEY missing",
            ApiKeyExpired => "API key expired; create a new one",
            PairSuspended => "trading of this pair suspended",
            PricePrecision => "price precision error",
            AmountPrecision => "amount precision error",
            AmountBelowMinimum => "amount below minimum",
            ValueBelowMinimum => "cash amount (order value) below minimum",
            InsufficientBalance => "insufficient balance",
            InvalidTradeType => "invalid trade type (buy or sell)",
            OrderNotFound => "order not found",
            InvalidDateFormat => "invalid date format (YYYY-MM-DD)",
            DateRangeTooLarge => "queried date range exceeds the limit",
            ApiTradingBanned => "API trading banned by the system",
            WrongSymbol => "wrong pair symbol (base first, then quote)",
            TradingRulesViolated => "trading rules violated; temporarily banned",
            InvalidCurrency => "invalid currency",
            EndBeforeStart => "end time must be at least the start time",
            InvalidTransferType => "invalid transfer type",
            InvalidAmount => "invalid amount",
            NotTransferable => "currency not transferable now",
            TransferExceedsBalance => "transfer amount exceeds balance",
            AbnormalAccount => "abnormal account status",
            TransferBlacklisted => "account on transfer blacklist",
            TransferDailyLimit => "transfer exceeds daily limit",
            NoPosition => "no position on this pair",
            BatchLimit => "batch order limit",
            WithdrawalRestricted => "withdrawal restricted",
            WrongWithdrawalId => "wrong withdrawal id",
            WithdrawalsClosed => "withdrawals closed for this currency",
            WithdrawalAmountLimit => "withdrawal amount limit",
            WithdrawalCancelFailed => "withdrawal cancellation failed",
            AddressNotManaged => "address, tag or chain not in the withdrawal management list",
            AddressNotWhitelisted => "withdrawal address not whitelisted",
            CannotCancelInStatus => "cannot cancel in the current status",
            WithdrawingTooOften => "withdrawing too often (3 per minute, 100 per day)",
            WithdrawalDailyQuota => "daily withdrawal quota exceeded",
            PairNotApiTradable => "pair does not support API trading",
            SystemError => "system error",
            Unknown(_) => "unknown error code",
        }
    }

    /// The classification a bot decides on.
    ///
    /// DESIGN: 10009 ("endpoint unknown or ACCESS-KEY missing") is classed as auth, since a client
    /// built from the catalog only reaches it without a key; quotas that reset daily (20029, 20041)
    /// are invalid requests, not rate limits, because retrying soon cannot succeed.
    pub fn kind(self) -> ErrorKind {
        use SpotCode::*;
        match self {
            InvalidApiKey
            | SignatureMismatch
            | Unauthorized
            | IpNotWhitelisted
            | UnknownEndpointOrMissingKey
            | ApiKeyExpired => ErrorKind::Auth,
            InvalidTimestamp => ErrorKind::Clock,
            FrequencyLimit | WithdrawingTooOften => ErrorKind::RateLimit,
            ApiTradingBanned | TradingRulesViolated => ErrorKind::Ban,
            InsufficientBalance | TransferExceedsBalance => ErrorKind::InsufficientFunds,
            OrderNotFound | NoPosition | WrongWithdrawalId => ErrorKind::NotFound,
            PairSuspended | NotTransferable | AbnormalAccount | TransferBlacklisted
            | WithdrawalRestricted | WithdrawalsClosed | PairNotApiTradable => ErrorKind::Suspended,
            SystemError => ErrorKind::Server,
            WrongMethod
            | IllegalParameters
            | PricePrecision
            | AmountPrecision
            | AmountBelowMinimum
            | ValueBelowMinimum
            | InvalidTradeType
            | InvalidDateFormat
            | DateRangeTooLarge
            | WrongSymbol
            | InvalidCurrency
            | EndBeforeStart
            | InvalidTransferType
            | InvalidAmount
            | TransferDailyLimit
            | BatchLimit
            | WithdrawalAmountLimit
            | WithdrawalCancelFailed
            | AddressNotManaged
            | AddressNotWhitelisted
            | CannotCancelInStatus
            | WithdrawalDailyQuota => ErrorKind::InvalidRequest,
            Unknown(_) => ErrorKind::Unknown,
        }
    }
}

code_enum! {
    /// Swap v2 and copy-trading error codes (`docs/protocol.md`, "Swap codes").
    pub enum SwapCode {
        /// 400001 required parameter missing.
        ParamMissing = 400001,
        /// 400002 parameter invalid.
        ParamInvalid = 400002,
        /// 400003 IP not authenticated.
        InvalidIp = 400003,
        /// 400004 signature mismatch.
        InvalidSign = 400004,
        /// 400005 permission denied.
        PermissionDeny = 400005,
        /// 400006 invalid API key.
        InvalidApiKey = 400006,
        /// 401001 leverage cannot change while unfinished orders exist.
        OrderExist = 401001,
        /// 401002 position open value above maximum.
        OverMaxOpenLimit = 401002,
        /// 401003 balance insufficient.
        NotEnoughMoney = 401003,
        /// 401004 instrument trading suspended.
        InstrumentNotTrading = 401004,
        /// 401005 instrument under maintenance.
        InstrumentMaintain = 401005,
        /// 401006 order size below minimum.
        InstrumentMinSizeLimit = 401006,
        /// 401007 price precision invalid.
        InvalidPricePrecision = 401007,
        /// 401008 instrument denies market orders.
        MarketTradingNotSupport = 401008,
        /// 401009 market order unsupported when the opposite side is empty.
        MarketNoOrder = 401009,
        /// 401010 price above maximum buy price.
        PriceOverMaxBuyLimit = 401010,
        /// 401011 price below minimum sell price.
        PriceBelowMinSellLimit = 401011,
        /// 401012 position too small to close.
        NotEnoughClosePosition = 401012,
        /// 401013 order price inferior to liquidation price.
        PriceOverLiquidationLimit = 401013,
        /// 401014 batch order or cancel count over 20.
        OrderCountOverLimit = 401014,
        /// 401015 action requires isolated position mode.
        PositionNotIsolated = 401015,
        /// 401016 cannot do this while a position exists.
        PositionExist = 401016,
        /// 401017 cannot do this while no position exists.
        PositionNotExist = 401017,
        /// 401018 transfer request not allowed.
        TransferNotAllow = 401018,
        /// 401019 transfer in risk control.
        TransferInRisk = 401019,
        /// 403001 frequency limit reached.
        FrequencyLimit = 403001,
        /// 403002 forbidden after repeated requests past the frequency limit.
        RequestForbidden = 403002,
        /// 403003 disabled for this user.
        Disabled = 403003,
        /// 404001 expert locked, cannot open positions.
        FollowExpertLocked = 404001,
        /// 404002 contract in settlement, sponsoring orders unsupported.
        FollowSettleLocked = 404002,
        /// 404003 copy contract offline or nonexistent.
        FollowInstrumentNotExist = 404003,
        /// 404004 positions exist, margin mode or leverage cannot change.
        FollowOrderChangeHasPosition = 404004,
        /// 404005 copy orders exist, margin mode or leverage cannot change.
        FollowOrderChangeHasFollow = 404005,
        /// 404006 a pending order exists, margin mode or leverage cannot change.
        FollowOrderChangeHasOrder = 404006,
        /// 404007 order price deviates too far from mark price.
        FollowOrderPriceOffsetOverLimit = 404007,
        /// 404008 take-profit price must be above the order price.
        FollowOrderStopEarnTriggerPriceLarge = 404008,
        /// 404009 take-profit price must be below the order price.
        FollowOrderStopEarnTriggerPriceLess = 404009,
        /// 404010 stop-loss price must be below the order price.
        FollowOrderStopLossTriggerPriceLess = 404010,
        /// 404011 stop-loss price must be above the order price.
        FollowOrderStopLossTriggerPriceLarge = 404011,
        /// 404012 order already executed to close the position.
        FollowErrorOrderClosed = 404012,
        /// 404013 order does not exist.
        FollowOrderNotExist = 404013,
        /// 404014 take-profit already exists.
        FollowStopProfitExist = 404014,
        /// 404015 stop-loss already exists.
        FollowStopLossExist = 404015,
        /// 500001 system error.
        SystemError = 500001,
        /// 500002 system exception, retry.
        SystemException = 500002,
    }
}

impl SwapCode {
    /// The documented name and meaning of the code.
    pub fn meaning(self) -> &'static str {
        use SwapCode::*;
        match self {
            ParamMissing => "ParamMissing: required parameter missing",
            ParamInvalid => "ParamInvalid: parameter invalid",
            InvalidIp => "InvalidIP: IP not authenticated",
            InvalidSign => "InvalidSign: signature mismatch",
            PermissionDeny => "PermissionDeny: permission denied",
            InvalidApiKey => "InvalidApiKey: invalid key",
            OrderExist => "OrderExist: leverage cannot change while unfinished orders exist",
            OverMaxOpenLimit => "OverMaxOpenLimit: position open value above maximum",
            NotEnoughMoney => "NotEnoughMoney: balance insufficient",
            InstrumentNotTrading => "InstrumentNotTrading: instrument trading suspended",
            InstrumentMaintain => "InstrumentMaintain: instrument under maintenance",
            InstrumentMinSizeLimit => "InstrumentMinSizeLimit: order size below minimum",
            InvalidPricePrecision => "InvalidPricePrecision: price precision invalid",
            MarketTradingNotSupport => "MarketTradingNotSupport: instrument denies market orders",
            MarketNoOrder => {
                "MarketNoOrder: market order unsupported when the opposite side is empty"
            }
            PriceOverMaxBuyLimit => "PriceOverMaxBuyLimit: price above maximum buy price",
            PriceBelowMinSellLimit => "PriceBelowMinSellLimit: price below minimum sell price",
            NotEnoughClosePosition => "NotEnoughClosePosition: position too small to close",
            PriceOverLiquidationLimit => {
                "PriceOverLiquidationLimit: order price inferior to liquidation price"
            }
            OrderCountOverLimit => "OrderCountOverLimit: batch order or cancel count over 20",
            PositionNotIsolated => "PositionNotIsolated: action requires isolated position mode",
            PositionExist => "PositionExist: cannot do this while a position exists",
            PositionNotExist => "PositionNotExist: cannot do this while no position exists",
            TransferNotAllow => "TransferNotAllow: transfer request not allowed",
            TransferInRisk => "TransferInRisk: transfer in risk control; contact support",
            FrequencyLimit => "FrequencyLimit: frequency limit reached",
            RequestForbidden => {
                "RequestForbidden: forbidden after repeated requests past the frequency limit"
            }
            Disabled => "Disabled: disabled for this user",
            FollowExpertLocked => "FollowExpertLocked: expert locked, cannot open positions",
            FollowSettleLocked => {
                "FollowSettleLocked: contract in settlement, sponsoring orders unsupported"
            }
            FollowInstrumentNotExist => {
                "FollowInstrumentNotExist: copy contract offline or nonexistent"
            }
            FollowOrderChangeHasPosition => {
                "FollowOrderChangeHasPosition: positions exist, margin mode or leverage cannot change"
            }
            FollowOrderChangeHasFollow => {
                "FollowOrderChangeHasFollow: copy orders exist, margin mode or leverage cannot change"
            }
            FollowOrderChangeHasOrder => {
                "FollowOrderChangeHasOrder: a pending order exists, margin mode or leverage cannot change"
            }
            FollowOrderPriceOffsetOverLimit => {
                "FollowOrderPriceOffsetOverLimit: order price deviates too far from mark price"
            }
            FollowOrderStopEarnTriggerPriceLarge => {
                "FollowOrderStopEarnTriggerPriceLarge: take-profit price must be above the order price"
            }
            FollowOrderStopEarnTriggerPriceLess => {
                "FollowOrderStopEarnTriggerPriceLess: take-profit price must be below the order price"
            }
            FollowOrderStopLossTriggerPriceLess => {
                "FollowOrderStopLossTriggerPriceLess: stop-loss price must be below the order price"
            }
            FollowOrderStopLossTriggerPriceLarge => {
                "FollowOrderStopLossTriggerPriceLarge: stop-loss price must be above the order price"
            }
            FollowErrorOrderClosed => {
                "FollowErrorOrderClosed: order already executed to close the position"
            }
            FollowOrderNotExist => "FollowOrderNotExist: order does not exist",
            FollowStopProfitExist => "FollowStopProfitExist: take-profit already exists",
            FollowStopLossExist => "FollowStopLossExist: stop-loss already exists",
            SystemError => "SystemError: system error",
            SystemException => "SystemException: system exception, retry",
            Unknown(_) => "unknown error code",
        }
    }

    /// The classification a bot decides on.
    ///
    /// DESIGN: 403001 (frequency limit) is a rate limit, 403002 and 403003 are bans; 401004,
    /// 401005 (instrument suspended or in maintenance), 401008, 401018, 401019, 404001-404003
    /// are suspensions; 404013 and 401017 (no such order or position) are not-found; the other
    /// 401xxx and 404xxx rule violations are invalid requests; 500002 ("retry") and 500001 are
    /// server errors.
    pub fn kind(self) -> ErrorKind {
        use SwapCode::*;
        match self {
            InvalidIp | InvalidSign | PermissionDeny | InvalidApiKey => ErrorKind::Auth,
            FrequencyLimit => ErrorKind::RateLimit,
            RequestForbidden | Disabled => ErrorKind::Ban,
            NotEnoughMoney => ErrorKind::InsufficientFunds,
            PositionNotExist | FollowOrderNotExist => ErrorKind::NotFound,
            InstrumentNotTrading
            | InstrumentMaintain
            | MarketTradingNotSupport
            | TransferNotAllow
            | TransferInRisk
            | FollowExpertLocked
            | FollowSettleLocked
            | FollowInstrumentNotExist => ErrorKind::Suspended,
            SystemError | SystemException => ErrorKind::Server,
            ParamMissing
            | ParamInvalid
            | OrderExist
            | OverMaxOpenLimit
            | InstrumentMinSizeLimit
            | InvalidPricePrecision
            | MarketNoOrder
            | PriceOverMaxBuyLimit
            | PriceBelowMinSellLimit
            | NotEnoughClosePosition
            | PriceOverLiquidationLimit
            | OrderCountOverLimit
            | PositionNotIsolated
            | PositionExist
            | FollowOrderChangeHasPosition
            | FollowOrderChangeHasFollow
            | FollowOrderChangeHasOrder
            | FollowOrderPriceOffsetOverLimit
            | FollowOrderStopEarnTriggerPriceLarge
            | FollowOrderStopEarnTriggerPriceLess
            | FollowOrderStopLossTriggerPriceLess
            | FollowOrderStopLossTriggerPriceLarge
            | FollowErrorOrderClosed
            | FollowStopProfitExist
            | FollowStopLossExist => ErrorKind::InvalidRequest,
            Unknown(_) => ErrorKind::Unknown,
        }
    }
}

impl Error {
    /// A validation error for `field`: its value breaks the rule `reason` states
    /// ([`ValidationKind::Invalid`]).
    pub fn validation(field: impl Into<Cow<'static, str>>, reason: impl Into<String>) -> Self {
        Error::Validation {
            field: field.into(),
            kind: ValidationKind::Invalid,
            reason: reason.into(),
        }
    }

    /// The error for the required parameter `field`, absent ([`ValidationKind::Missing`]).
    pub fn missing(field: impl Into<Cow<'static, str>>) -> Self {
        Error::missing_when(field, String::new())
    }

    /// The error for the parameter `field`, absent where `when` requires it: `when` continues
    /// "missing required parameter `price`", as in "for a limit order".
    pub fn missing_when(field: impl Into<Cow<'static, str>>, when: impl Into<String>) -> Self {
        Error::Validation {
            field: field.into(),
            kind: ValidationKind::Missing,
            reason: when.into(),
        }
    }

    /// The error for `field`, a parameter the endpoint does not take
    /// ([`ValidationKind::Unknown`]); `hint` names the closest name and those it takes.
    pub fn unknown_parameter(field: impl Into<Cow<'static, str>>, hint: impl Into<String>) -> Self {
        Error::Validation {
            field: field.into(),
            kind: ValidationKind::Unknown,
            reason: hint.into(),
        }
    }

    /// The parameter a validation error names (`None` for other errors).
    pub fn field(&self) -> Option<&str> {
        match self {
            Error::Validation { field, .. } => Some(field),
            _ => None,
        }
    }

    /// What a validation error says of its field (`None` for other errors).
    pub fn validation_kind(&self) -> Option<ValidationKind> {
        match self {
            Error::Validation { kind, .. } => Some(*kind),
            _ => None,
        }
    }

    /// The same error naming `field` instead (a validation error's field with its batch
    /// element, for example); other errors are returned as they are.
    pub fn with_field(self, field: impl Into<Cow<'static, str>>) -> Self {
        match self {
            Error::Validation { kind, reason, .. } => Error::Validation {
                field: field.into(),
                kind,
                reason,
            },
            other => other,
        }
    }

    /// The classification of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Validation { .. } => ErrorKind::InvalidRequest,
            Error::Api(e) => e.code.kind(),
            Error::HttpStatus { status, .. } => match status {
                401 => ErrorKind::Auth,
                404 => ErrorKind::NotFound,
                408 => ErrorKind::Server,
                418 | 429 => ErrorKind::RateLimit,
                403 => ErrorKind::Ban,
                500..=599 => ErrorKind::Server,
                _ => ErrorKind::Unknown,
            },
            Error::RateLimited { .. } => ErrorKind::RateLimit,
            Error::Banned { .. } => ErrorKind::Ban,
            Error::Decode { .. } => ErrorKind::Decode,
            Error::Transport { .. } => ErrorKind::Network,
            Error::OutcomeUnknown { .. } => ErrorKind::OutcomeUnknown,
            Error::BudgetExhausted { .. } => ErrorKind::RateLimit,
            Error::BanActive { .. } => ErrorKind::Ban,
            Error::Redirect { .. } => ErrorKind::Redirect,
            Error::Rule(e) => match e.rule {
                crate::refusal::Rule::NotApiTradable | crate::refusal::Rule::NotTrading => {
                    ErrorKind::Suspended
                }
                _ => ErrorKind::InvalidRequest,
            },
        }
    }

    /// Whether repeating the same request later may succeed: rate limits (after the delay), server
    /// failures, and clock errors (after a time sync). Whether it is *safe* to repeat depends on
    /// the endpoint being idempotent, which the retry policy checks separately.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.kind(),
            ErrorKind::RateLimit | ErrorKind::Server | ErrorKind::Clock | ErrorKind::Network
        )
    }

    /// The raw exchange code, for API errors; for [`Error::Rule`], the code the venue answers
    /// for the same order (the refusal it stands for: 20007, 401006, ...).
    pub fn api_code(&self) -> Option<i64> {
        match self {
            Error::Api(e) => Some(e.code.code()),
            Error::Rule(e) => e.code(),
            _ => None,
        }
    }

    /// What the client knew before sending the write of an [`Error::OutcomeUnknown`].
    pub fn prior(&self) -> Option<&Prior> {
        match self {
            Error::OutcomeUnknown { prior, .. } => prior.as_deref(),
            _ => None,
        }
    }

    /// Sets what the client knew before sending the write of an [`Error::OutcomeUnknown`]
    /// (merged with what it already carries); other errors are unchanged.
    pub fn with_prior(mut self, known: Prior) -> Self {
        if let Error::OutcomeUnknown { prior, .. } = &mut self {
            match prior {
                Some(p) => p.merge(&known),
                None => *prior = Some(Box::new(known)),
            }
        }
        self
    }

    /// The HTTP status of the response that produced this error, if any.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Validation { .. }
            | Error::Transport { .. }
            | Error::BudgetExhausted { .. }
            | Error::BanActive { .. }
            | Error::Rule(_) => None,
            Error::OutcomeUnknown { cause, .. } => cause.status(),
            Error::Api(e) => Some(e.status),
            Error::HttpStatus { status, .. }
            | Error::RateLimited { status, .. }
            | Error::Banned { status, .. }
            | Error::Decode { status, .. }
            | Error::Redirect { status, .. } => Some(*status),
        }
    }

    /// How long the server asked to wait, when it said.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Error::RateLimited { retry_after, .. } => *retry_after,
            Error::BudgetExhausted { retry_after, .. } => Some(*retry_after),
            Error::Api(e) => e.retry_after,
            _ => None,
        }
    }
}

/// The start of a body for error messages: at most 256 bytes, cut on a character boundary.
pub(crate) fn snippet(body: &[u8]) -> String {
    const MAX: usize = 256;
    let cut = body.get(..MAX).unwrap_or(body);
    let text = String::from_utf8_lossy(cut);
    let mut s = text.into_owned();
    if body.len() > MAX {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_spot_code_is_known_and_classified() {
        let codes = [
            10001, 10002, 10003, 10004, 10005, 10006, 10007, 10008, 10009, 10011, 20002, 20007,
            20008, 20009, 20010, 20011, 20012, 20013, 20014, 20015, 20018, 20019, 20020, 20021,
            20022, 20023, 20024, 20025, 20026, 20027, 20028, 20029, 20030, 20031, 20032, 20033,
            20034, 20035, 20036, 20037, 20038, 20039, 20040, 20041, 20042, 50000,
        ];
        for c in codes {
            let code = SpotCode::from_code(c);
            assert!(!matches!(code, SpotCode::Unknown(_)), "{c}");
            assert_eq!(code.code(), c);
            assert_ne!(code.kind(), ErrorKind::Unknown, "{c}");
            assert_ne!(code.meaning(), "unknown error code");
        }
        assert_eq!(SpotCode::from_code(10010), SpotCode::Unknown(10010));
        assert_eq!(SpotCode::from_code(10010).kind(), ErrorKind::Unknown);
    }

    #[test]
    fn every_documented_swap_code_is_known_and_classified() {
        let codes = [
            400001, 400002, 400003, 400004, 400005, 400006, 401001, 401002, 401003, 401004, 401005,
            401006, 401007, 401008, 401009, 401010, 401011, 401012, 401013, 401014, 401015, 401016,
            401017, 401018, 401019, 403001, 403002, 403003, 404001, 404002, 404003, 404004, 404005,
            404006, 404007, 404008, 404009, 404010, 404011, 404012, 404013, 404014, 404015, 500001,
            500002,
        ];
        for c in codes {
            let code = SwapCode::from_code(c);
            assert!(!matches!(code, SwapCode::Unknown(_)), "{c}");
            assert_eq!(code.code(), c);
            assert_ne!(code.kind(), ErrorKind::Unknown, "{c}");
            assert_ne!(code.meaning(), "unknown error code");
        }
        let k = |c| SwapCode::from_code(c).kind();
        assert_eq!(k(400004), ErrorKind::Auth);
        assert_eq!(k(401003), ErrorKind::InsufficientFunds);
        assert_eq!(k(403001), ErrorKind::RateLimit);
        assert_eq!(k(403002), ErrorKind::Ban);
        assert_eq!(k(404013), ErrorKind::NotFound);
        assert_eq!(k(401004), ErrorKind::Suspended);
        assert_eq!(k(500002), ErrorKind::Server);
        assert_eq!(k(401006), ErrorKind::InvalidRequest);
        assert_eq!(SwapCode::from_code(10003), SwapCode::Unknown(10003));
        assert_eq!(
            ApiCode::from_family(Family::Swap, 401003),
            ApiCode::Swap(SwapCode::NotEnoughMoney)
        );
    }

    #[test]
    fn classification_answers_a_bots_questions() {
        let k = |c| SpotCode::from_code(c).kind();
        assert_eq!(k(10003), ErrorKind::Auth);
        assert_eq!(k(10008), ErrorKind::Clock);
        assert_eq!(k(10005), ErrorKind::RateLimit);
        assert_eq!(k(20018), ErrorKind::Ban);
        assert_eq!(k(20020), ErrorKind::Ban);
        assert_eq!(k(20011), ErrorKind::InsufficientFunds);
        assert_eq!(k(20013), ErrorKind::NotFound);
        assert_eq!(k(20002), ErrorKind::Suspended);
        assert_eq!(k(20042), ErrorKind::Suspended);
        assert_eq!(k(20007), ErrorKind::InvalidRequest);
        assert_eq!(k(50000), ErrorKind::Server);
    }

    #[test]
    fn a_message_that_repeats_the_meaning_is_shown_once() {
        let e = |family, code, message: Option<&str>| {
            Error::Api(ApiError {
                family,
                code: ApiCode::from_family(family, code),
                message: message.map(str::to_owned),
                status: 200,
                retry_after: None,
            })
            .to_string()
        };
        assert_eq!(
            e(Family::Spot, 10003, Some("signature mismatch")),
            "spot API error 10003: signature mismatch [HTTP 200]"
        );
        assert_eq!(
            e(Family::Spot, 10003, Some("Signature Mismatch.")),
            "spot API error 10003: signature mismatch [HTTP 200]"
        );
        assert_eq!(
            e(Family::Swap, 400004, Some("InvalidSign")),
            "swap API error 400004: InvalidSign: signature mismatch [HTTP 200]"
        );
        assert_eq!(
            e(Family::Swap, 400002, Some("invalid InstrumentId")),
            "swap API error 400002: ParamInvalid: parameter invalid (invalid InstrumentId) \
             [HTTP 200]"
        );
        assert_eq!(
            e(Family::Spot, 10003, None),
            "spot API error 10003: signature mismatch [HTTP 200]"
        );
    }

    #[test]
    fn validation_errors_read_naturally() {
        assert_eq!(
            Error::missing("symbol").to_string(),
            "missing required parameter `symbol`"
        );
        assert_eq!(
            Error::missing_when("price", "for a limit order").to_string(),
            "missing required parameter `price` for a limit order"
        );
        assert_eq!(
            Error::unknown_parameter("x", "").to_string(),
            "unknown parameter `x`"
        );
        assert_eq!(
            Error::validation("limit", "151 is outside 1..=150").to_string(),
            "invalid `limit`: 151 is outside 1..=150"
        );
    }

    #[test]
    fn snippet_is_bounded_and_safe() {
        let body = "é".repeat(300);
        let s = snippet(body.as_bytes());
        assert!(s.len() <= 260);
        assert!(s.ends_with('…'));
        assert_eq!(snippet(b"short"), "short");
    }
}
