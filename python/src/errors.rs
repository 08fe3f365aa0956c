//! The exception classes: one base, `digifinex.Error`, and one class per error kind of the core
//! ([`ErrorKind`]), each carrying what a program decides with.
//!
//! Every instance has `kind` (`"auth"`, `"clock"`, `"rate_limit"`, `"ban"`,
//! `"invalid_request"`, `"insufficient_funds"`, `"not_found"`, `"suspended"`, `"server"`,
//! `"network"`, `"decode"`, `"redirect"`, `"outcome_unknown"`, `"unknown"`), `code` (the
//! venue's code, or for a rule refusal the code the venue answers for the same order),
//! `status` (HTTP), `snippet` (the start of the body, where the answer was not the venue's
//! error envelope), `venue_message` (the envelope's `msg`), `field` (the parameter of a
//! validation or rule error) and `retry_after` (seconds). `OutcomeUnknown` also has `method`,
//! `url`, `endpoint`, `body` (the request that may have been applied; the signature headers
//! are never kept) and `cause`, and `Client.reconcile(err)` reads the account to decide it.

use digifinex_core::{Error, ErrorKind};
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyString;

pyo3::create_exception!(
    digifinex,
    DigifinexError,
    PyException,
    "Base of every error of the digifinex package."
);
pyo3::create_exception!(
    digifinex,
    AuthError,
    DigifinexError,
    "Key, signature, permission, IP whitelist or expiry problem."
);
pyo3::create_exception!(
    digifinex,
    ClockError,
    DigifinexError,
    "The request timestamp is outside the server's window."
);
pyo3::create_exception!(
    digifinex,
    RateLimitError,
    DigifinexError,
    "Too many requests (the venue's or the client's weight budget): back off."
);
pyo3::create_exception!(
    digifinex,
    BanError,
    DigifinexError,
    "Banned for a while (request-weight ban, API trading ban)."
);
pyo3::create_exception!(
    digifinex,
    InvalidRequestError,
    DigifinexError,
    "The request itself is wrong; do not retry it unchanged."
);
pyo3::create_exception!(
    digifinex,
    ValidationError,
    InvalidRequestError,
    "A parameter broke a documented rule: nothing was sent."
);
pyo3::create_exception!(
    digifinex,
    RuleError,
    InvalidRequestError,
    "An order off its market's rules (grid, minimums): nothing was sent."
);
pyo3::create_exception!(
    digifinex,
    InsufficientFundsError,
    DigifinexError,
    "Not enough balance."
);
pyo3::create_exception!(
    digifinex,
    NotFoundError,
    DigifinexError,
    "The order, withdrawal or position does not exist."
);
pyo3::create_exception!(
    digifinex,
    SuspendedError,
    DigifinexError,
    "Trading, transfer or withdrawal is suspended."
);
pyo3::create_exception!(
    digifinex,
    ServerError,
    DigifinexError,
    "The exchange failed internally; a retry may succeed."
);
pyo3::create_exception!(
    digifinex,
    NetworkError,
    DigifinexError,
    "The network failed (connect, timeout, connection lost)."
);
pyo3::create_exception!(
    digifinex,
    DecodeError,
    DigifinexError,
    "The answer could not be understood (names the JSON path and the type)."
);
pyo3::create_exception!(
    digifinex,
    RedirectError,
    DigifinexError,
    "The answer was a redirect, never followed: the base URL or a proxy is wrong."
);
pyo3::create_exception!(digifinex, OutcomeUnknown, DigifinexError, "A write may or may not have been applied; it was not sent again. Client.reconcile(err) decides it.");
pyo3::create_exception!(
    digifinex,
    UnknownCodeError,
    DigifinexError,
    "An exchange code this library does not know."
);

/// The Rust error behind an `OutcomeUnknown`, kept for `Client.reconcile`.
#[pyclass(frozen, module = "digifinex._native")]
pub(crate) struct Pending {
    pub(crate) error: Error,
}

/// Registers the classes in the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<DigifinexError>())?;
    m.add("AuthError", py.get_type::<AuthError>())?;
    m.add("ClockError", py.get_type::<ClockError>())?;
    m.add("RateLimitError", py.get_type::<RateLimitError>())?;
    m.add("BanError", py.get_type::<BanError>())?;
    m.add("InvalidRequestError", py.get_type::<InvalidRequestError>())?;
    m.add("ValidationError", py.get_type::<ValidationError>())?;
    m.add("RuleError", py.get_type::<RuleError>())?;
    m.add(
        "InsufficientFundsError",
        py.get_type::<InsufficientFundsError>(),
    )?;
    m.add("NotFoundError", py.get_type::<NotFoundError>())?;
    m.add("SuspendedError", py.get_type::<SuspendedError>())?;
    m.add("ServerError", py.get_type::<ServerError>())?;
    m.add("NetworkError", py.get_type::<NetworkError>())?;
    m.add("DecodeError", py.get_type::<DecodeError>())?;
    m.add("RedirectError", py.get_type::<RedirectError>())?;
    m.add("OutcomeUnknown", py.get_type::<OutcomeUnknown>())?;
    m.add("UnknownCodeError", py.get_type::<UnknownCodeError>())?;
    m.add_class::<Pending>()?;
    Ok(())
}

/// The `kind` text of an error kind.
pub(crate) fn kind_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Auth => "auth",
        ErrorKind::Clock => "clock",
        ErrorKind::RateLimit => "rate_limit",
        ErrorKind::Ban => "ban",
        ErrorKind::InvalidRequest => "invalid_request",
        ErrorKind::InsufficientFunds => "insufficient_funds",
        ErrorKind::NotFound => "not_found",
        ErrorKind::Suspended => "suspended",
        ErrorKind::Server => "server",
        ErrorKind::Redirect => "redirect",
        ErrorKind::Decode => "decode",
        ErrorKind::Network => "network",
        ErrorKind::OutcomeUnknown => "outcome_unknown",
        // `ErrorKind` is non-exhaustive: a kind added later reads as unknown here.
        _ => "unknown",
    }
}

fn new_of_kind(error: &Error, message: String) -> PyErr {
    if matches!(error, Error::Validation { .. }) {
        return ValidationError::new_err(message);
    }
    match error.kind() {
        ErrorKind::Auth => AuthError::new_err(message),
        ErrorKind::Clock => ClockError::new_err(message),
        ErrorKind::RateLimit => RateLimitError::new_err(message),
        ErrorKind::Ban => BanError::new_err(message),
        ErrorKind::InvalidRequest if matches!(error, Error::Rule(_)) => RuleError::new_err(message),
        ErrorKind::InvalidRequest => InvalidRequestError::new_err(message),
        ErrorKind::InsufficientFunds => InsufficientFundsError::new_err(message),
        ErrorKind::NotFound => NotFoundError::new_err(message),
        ErrorKind::Suspended => SuspendedError::new_err(message),
        ErrorKind::Server => ServerError::new_err(message),
        ErrorKind::Redirect => RedirectError::new_err(message),
        ErrorKind::Decode => DecodeError::new_err(message),
        ErrorKind::Network => NetworkError::new_err(message),
        ErrorKind::OutcomeUnknown => OutcomeUnknown::new_err(message),
        _ => UnknownCodeError::new_err(message),
    }
}

/// The Python exception of `error`, with its attributes set.
pub(crate) fn to_pyerr(py: Python<'_>, error: Error) -> PyErr {
    let message = error.to_string();
    to_pyerr_with(py, error, message)
}

/// [`to_pyerr`] with its own message (a batch's rule refusal names the element).
pub(crate) fn to_pyerr_with(py: Python<'_>, error: Error, message: String) -> PyErr {
    let err = match build(py, &error, message) {
        Ok(e) => e,
        Err(e) => return e,
    };
    if matches!(error, Error::OutcomeUnknown { .. }) {
        let kept =
            Py::new(py, Pending { error }).and_then(|p| err.value(py).setattr("_pending", p));
        if let Err(e) = kept {
            return e;
        }
    }
    err
}

fn build(py: Python<'_>, error: &Error, message: String) -> PyResult<PyErr> {
    let err = new_of_kind(error, message);
    let v = err.value(py);
    v.setattr("kind", kind_name(error.kind()))?;
    v.setattr("code", error.api_code())?;
    v.setattr("status", error.status())?;
    v.setattr("field", error.field())?;
    v.setattr("retry_after", error.retry_after().map(|d| d.as_secs_f64()))?;
    let (snippet, venue_message) = match error {
        Error::HttpStatus { snippet, .. }
        | Error::RateLimited { snippet, .. }
        | Error::Banned { snippet, .. }
        | Error::Decode { snippet, .. } => (Some(snippet.as_str()), None),
        Error::Api(api) => (None, api.message.as_deref()),
        _ => (None, None),
    };
    v.setattr("snippet", snippet)?;
    v.setattr("venue_message", venue_message)?;
    if let Error::OutcomeUnknown {
        method,
        url,
        body,
        endpoint,
        cause,
        ..
    } = error
    {
        v.setattr("method", PyString::new(py, method))?;
        v.setattr("url", PyString::new(py, url))?;
        v.setattr("body", PyString::new(py, body))?;
        v.setattr("endpoint", *endpoint)?;
        let cause = build(py, cause, cause.to_string())?;
        v.setattr("cause", cause.value(py))?;
    }
    Ok(err)
}
