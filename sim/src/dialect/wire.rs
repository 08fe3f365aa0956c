//! The request and response values handlers work on, independent of hyper, plus JSON helpers.

use crate::json::J;
use bytes::Bytes;
use http::{HeaderMap, Method};
use std::net::IpAddr;

/// A fully read request.
#[derive(Debug, Clone)]
pub struct SimRequest {
    /// Method.
    pub method: Method,
    /// Path without the query (`/v3/spot/order/new`).
    pub path: String,
    /// Raw query text after `?` (empty when none), exactly as transmitted.
    pub query: String,
    /// Headers.
    pub headers: HeaderMap,
    /// Raw body.
    pub body: Bytes,
    /// Caller IP.
    pub peer: IpAddr,
}

impl SimRequest {
    /// A header's value as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body as UTF-8 text (lossy).
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A response to write.
#[derive(Debug, Clone)]
pub struct SimResponse {
    /// HTTP status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// `content-type`.
    pub content_type: &'static str,
    /// Body bytes.
    pub body: Vec<u8>,
}

impl SimResponse {
    /// A JSON response.
    pub fn json(status: u16, body: &J) -> SimResponse {
        SimResponse {
            status,
            headers: Vec::new(),
            content_type: "application/json",
            body: body.to_json().into_bytes(),
        }
    }

    /// HTTP 200 with a JSON body.
    pub fn ok(body: &J) -> SimResponse {
        SimResponse::json(200, body)
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> SimResponse {
        self.headers.push((name.to_owned(), value.into()));
        self
    }
}

/// `{"code":code,"msg":msg}`.
pub fn error_body(code: i64, msg: &str) -> J {
    J::obj().with("code", code).with("msg", msg)
}

/// Parses `a=1&b=2` text into decoded pairs in order.
pub fn parse_form(text: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(text.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}
