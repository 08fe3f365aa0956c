//! Where requests go and the optional settings that shape them.

/// Default spot/margin base URL (already ends with the `/v3` version segment).
pub const DEFAULT_SPOT_BASE_URL: &str = "https://openapi.digifinex.com/v3";
/// Default swap host; swap paths start with `/swap/v2`.
pub const DEFAULT_SWAP_BASE_URL: &str = "https://openapi.digifinex.com";

/// Settings used by [`crate::build`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Spot/margin base URL, ending with `/v3` (no trailing slash needed).
    pub spot_base_url: String,
    /// Swap host URL; `/swap/v2/...` paths are appended.
    pub swap_base_url: String,
    /// Value for the optional `ACCESS-RECV-WINDOW` header on signed spot requests.
    ///
    /// DESIGN: the spec does not state the header's unit; the value is sent verbatim, and the CLI
    /// contract calls it milliseconds (`--recv-window MS`).
    pub recv_window: Option<u64>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            spot_base_url: DEFAULT_SPOT_BASE_URL.to_owned(),
            swap_base_url: DEFAULT_SWAP_BASE_URL.to_owned(),
            recv_window: None,
        }
    }
}

impl Config {
    /// Sets the spot base URL (a trailing `/` is removed).
    pub fn with_spot_base_url(mut self, url: impl Into<String>) -> Self {
        self.spot_base_url = trim(url.into());
        self
    }
    /// Sets the swap host URL (a trailing `/` is removed).
    pub fn with_swap_base_url(mut self, url: impl Into<String>) -> Self {
        self.swap_base_url = trim(url.into());
        self
    }
    /// Sets `ACCESS-RECV-WINDOW`.
    pub fn with_recv_window(mut self, window: u64) -> Self {
        self.recv_window = Some(window);
        self
    }

    /// Checks that both base URLs are `https://`, or `http://` when `allow_http` (a simulator,
    /// tests): the clients call this when they are built. The error names the field
    /// (`spot_base_url`, `swap_base_url`).
    pub fn check_urls(&self, allow_http: bool) -> Result<(), crate::Error> {
        check_url("spot_base_url", &self.spot_base_url, allow_http)?;
        check_url("swap_base_url", &self.swap_base_url, allow_http)
    }
}

fn check_url(field: &'static str, url: &str, allow_http: bool) -> Result<(), crate::Error> {
    let scheme = |s: &str| {
        url.get(..s.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(s))
    };
    if scheme("https://") || (allow_http && scheme("http://")) {
        Ok(())
    } else if scheme("http://") {
        Err(crate::Error::validation(
            field,
            format!(
                "{url} is plain http: use https, or, for a local simulator, build the client \
                 with `.allow_http(true)`"
            ),
        ))
    } else {
        Err(crate::Error::validation(
            field,
            format!("{url} is not an https URL"),
        ))
    }
}

fn trim(mut s: String) -> String {
    while s.ends_with('/') {
        s.pop();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(r: Result<(), crate::Error>) -> Option<String> {
        match r {
            Ok(()) => None,
            Err(crate::Error::Validation { field, .. }) => Some(field.into_owned()),
            Err(other) => panic!("not a validation error: {other:?}"),
        }
    }

    #[test]
    fn base_urls_must_be_https_unless_http_is_allowed() {
        let c = Config::default();
        assert_eq!(field(c.check_urls(false)), None);
        let plain = Config::default().with_spot_base_url("http://127.0.0.1:1/v3");
        assert_eq!(
            field(plain.check_urls(false)).as_deref(),
            Some("spot_base_url")
        );
        assert_eq!(field(plain.check_urls(true)), None);
        let upper = Config::default().with_swap_base_url("HTTPS://Example.com");
        assert_eq!(field(upper.check_urls(false)), None);
        for bad in ["ftp://x", "", "http:/x", "é"] {
            let c = Config::default().with_swap_base_url(bad);
            assert_eq!(
                field(c.check_urls(true)).as_deref(),
                Some("swap_base_url"),
                "{bad}"
            );
        }
    }
}
