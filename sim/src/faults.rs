//! Fault injection: rules matched per route (method + path) or globally, optionally for the next
//! N matching requests only.
//!
//! | kind | request applied? | what the client sees |
//! |---|---|---|
//! | [`FaultKind::Latency`] | yes | the normal answer, `ms` later |
//! | [`FaultKind::TooManyRequests`] | no | HTTP 429, `retry-after` header, body `{"code":10005,...}` (swap: 403001) |
//! | [`FaultKind::ServerError`] | no | the given 5xx status with a JSON `{"code":50000,...}` body (swap: 500001) |
//! | [`FaultKind::MalformedJson`] | yes | status 200, a body that is not valid JSON |
//! | [`FaultKind::TruncatedBody`] | yes | status 200 and a `content-length` larger than the bytes sent before the connection closes |
//! | [`FaultKind::HtmlError`] | no | the given status with an HTML page (`text/html`) |
//! | [`FaultKind::DropBeforeApply`] | no | the connection closes without any response |
//! | [`FaultKind::DropAfterApply`] | yes | the connection closes without any response (the unknown-outcome case) |
//! | [`FaultKind::LateAnswer`] | yes, at once | the normal answer, `delay_ms` after the request was applied |
//!
//! [`FaultKind::Latency`] waits *before* applying the request, so a client that gives up during
//! the wait leaves nothing behind. [`FaultKind::LateAnswer`] is the case a client fears most: the
//! request takes effect at once and only the answer is late, so a client whose timeout is
//! shorter than `delay_ms` sees a timeout for an order that exists (it must look at its open
//! orders before sending again).
//!
//! Latency rules add up and combine with at most one other fault (the first matching rule of
//! another kind, in the order the rules were added). Control routes (`/__sim/...`) never fault.

use serde::{Deserialize, Serialize};

/// What a fault does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FaultKind {
    /// Delay the answer.
    Latency {
        /// Delay in milliseconds.
        ms: u64,
    },
    /// HTTP 429 with `retry-after`.
    TooManyRequests {
        /// `retry-after` value in seconds.
        retry_after_s: u64,
    },
    /// A 5xx status with a JSON error body.
    ServerError {
        /// Status code (500 when out of the 500-599 range).
        status: u16,
    },
    /// A body that is not JSON, after applying the request.
    MalformedJson,
    /// A body cut short of its `content-length`, after applying the request.
    TruncatedBody,
    /// An HTML error page instead of JSON.
    HtmlError {
        /// Status code.
        status: u16,
    },
    /// Close the connection before the request is applied.
    DropBeforeApply,
    /// Apply the request, then close the connection without answering.
    DropAfterApply,
    /// Apply the request at once, then hold the (normal) answer back for `delay_ms`: the
    /// request has taken effect even when the client times out first.
    LateAnswer {
        /// Milliseconds between applying the request and answering.
        delay_ms: u64,
    },
}

/// A fault rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultRule {
    /// HTTP method to match (any when `None`).
    #[serde(default)]
    pub method: Option<String>,
    /// Path to match exactly (`/v3/spot/order/new`), or a prefix when it ends with `*`; any path
    /// when `None`.
    #[serde(default)]
    pub path: Option<String>,
    /// What to do.
    pub fault: FaultKind,
    /// Apply to the next `count` matching requests only; forever when `None`.
    #[serde(default)]
    pub count: Option<u32>,
}

impl FaultRule {
    /// A rule for every request.
    pub fn global(fault: FaultKind) -> FaultRule {
        FaultRule {
            method: None,
            path: None,
            fault,
            count: None,
        }
    }

    /// A rule for one route.
    pub fn route(method: &str, path: &str, fault: FaultKind) -> FaultRule {
        FaultRule {
            method: Some(method.to_ascii_uppercase()),
            path: Some(path.to_owned()),
            fault,
            count: None,
        }
    }

    /// Limits the rule to the next `n` matching requests.
    pub fn times(mut self, n: u32) -> FaultRule {
        self.count = Some(n);
        self
    }

    fn matches(&self, method: &str, path: &str) -> bool {
        if let Some(m) = &self.method {
            if !m.eq_ignore_ascii_case(method) {
                return false;
            }
        }
        match &self.path {
            None => true,
            Some(p) => match p.strip_suffix('*') {
                Some(prefix) => path.starts_with(prefix),
                None => p == path,
            },
        }
    }
}

/// Faults chosen for one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultPlan {
    /// Total added latency.
    pub delay_ms: u64,
    /// The non-latency fault, if any.
    pub fault: Option<FaultKind>,
}

/// The active rules.
#[derive(Debug, Default)]
pub struct Faults {
    rules: Vec<(u64, FaultRule)>,
    next_id: u64,
}

impl Faults {
    /// Adds a rule and returns its id.
    pub fn add(&mut self, rule: FaultRule) -> u64 {
        self.next_id += 1;
        self.rules.push((self.next_id, rule));
        self.next_id
    }

    /// Removes one rule; whether it existed.
    pub fn remove(&mut self, id: u64) -> bool {
        let before = self.rules.len();
        self.rules.retain(|(i, _)| *i != id);
        before != self.rules.len()
    }

    /// Removes every rule.
    pub fn clear(&mut self) {
        self.rules.clear();
    }

    /// The active rules with their ids.
    pub fn list(&self) -> Vec<(u64, FaultRule)> {
        self.rules.clone()
    }

    /// Picks the faults for a request and consumes one use of each chosen counted rule.
    pub fn plan(&mut self, method: &str, path: &str) -> FaultPlan {
        let mut plan = FaultPlan::default();
        for (_, rule) in self.rules.iter_mut() {
            if !rule.matches(method, path) || rule.count == Some(0) {
                continue;
            }
            let take = match &rule.fault {
                FaultKind::Latency { ms } => {
                    plan.delay_ms = plan.delay_ms.saturating_add(*ms);
                    true
                }
                other => {
                    if plan.fault.is_none() {
                        plan.fault = Some(other.clone());
                        true
                    } else {
                        false
                    }
                }
            };
            if take {
                if let Some(c) = &mut rule.count {
                    *c -= 1;
                }
            }
        }
        self.rules.retain(|(_, r)| r.count != Some(0));
        plan
    }
}
