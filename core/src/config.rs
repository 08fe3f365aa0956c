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
}

fn trim(mut s: String) -> String {
    while s.ends_with('/') {
        s.pop();
    }
    s
}
