//! The rules of every market, kept with the time they were loaded.

use std::collections::HashMap;
use std::time::Duration;

use super::{RulesLookup, SpotRules, SwapRules};
use crate::session::Session;
use crate::spot::{SymbolList, TradesSymbolsRequest};
use crate::swap::{Instrument, InstrumentsRequest};

/// The rules of every spot pair and swap instrument, with the time each family was loaded.
///
/// Sans-IO: the cache says when it is stale ([`RulesCache::spot_is_stale`]) and which request
/// loads it ([`RulesCache::spot_request`]); the caller sends that request and hands the answer
/// back ([`RulesCache::load_spot`]). The clients do this on demand.
///
/// DESIGN: spot rules come from `/trades/symbols`, the list that carries `is_allow` (API
/// trading allowed); swap rules from `/swap/v2/public/instruments` (real instruments; load the
/// simulated list too with [`RulesCache::load_swap`] to merge it). A load replaces the whole
/// family, so a delisted market disappears. The default refresh interval is 10 minutes:
/// precisions and minimums change rarely, and a stale rule only makes a check pass or fail
/// that the venue then decides.
///
/// # Examples
///
/// ```
/// use digifinex_core::rules::RulesCache;
/// use digifinex_core::spot::SymbolList;
/// use std::time::Duration;
/// let mut cache = RulesCache::new(Duration::from_secs(600));
/// assert!(cache.spot_is_stale(1_000));
/// let list: SymbolList = serde_json::from_str(
///     r#"{"symbol_list":[{"symbol":"BTC_USDT","price_precision":2,"amount_precision":4}]}"#,
/// )?;
/// cache.load_spot(&list, 1_000);
/// assert!(!cache.spot_is_stale(2_000));
/// assert!(cache.spot_is_stale(601_000));
/// assert!(cache.spot("btc_usdt").is_some() && cache.spot("BTC_USDT").is_some());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct RulesCache {
    spot: HashMap<String, SpotRules>,
    swap: HashMap<String, SwapRules>,
    spot_at: Option<i64>,
    swap_at: Option<i64>,
    refresh_ms: i64,
}

impl Default for RulesCache {
    fn default() -> Self {
        RulesCache::new(RulesCache::DEFAULT_REFRESH)
    }
}

impl RulesCache {
    /// The default refresh interval: 10 minutes.
    pub const DEFAULT_REFRESH: Duration = Duration::from_secs(600);

    /// An empty cache that reloads a family `refresh` after loading it.
    pub fn new(refresh: Duration) -> RulesCache {
        RulesCache {
            spot: HashMap::new(),
            swap: HashMap::new(),
            spot_at: None,
            swap_at: None,
            refresh_ms: i64::try_from(refresh.as_millis()).unwrap_or(i64::MAX),
        }
    }

    /// The request that loads the spot rules.
    pub fn spot_request() -> TradesSymbolsRequest {
        TradesSymbolsRequest::new()
    }

    /// The request that loads the swap rules (real instruments).
    pub fn swap_request() -> InstrumentsRequest {
        InstrumentsRequest::new()
    }

    fn stale(at: Option<i64>, now_ms: i64, refresh_ms: i64) -> bool {
        match at {
            None => true,
            Some(at) => now_ms.saturating_sub(at) >= refresh_ms || now_ms < at,
        }
    }

    /// Whether the spot rules must be (re)loaded at `now_ms` (never loaded, or older than the
    /// refresh interval, or loaded "in the future" after a clock step back).
    pub fn spot_is_stale(&self, now_ms: i64) -> bool {
        Self::stale(self.spot_at, now_ms, self.refresh_ms)
    }

    /// Whether the swap rules must be (re)loaded at `now_ms`.
    pub fn swap_is_stale(&self, now_ms: i64) -> bool {
        Self::stale(self.swap_at, now_ms, self.refresh_ms)
    }

    /// Replaces the spot rules with those of `list`, loaded at `now_ms`.
    pub fn load_spot(&mut self, list: &SymbolList, now_ms: i64) {
        self.spot = list
            .symbol_list
            .iter()
            .map(|s| {
                (
                    s.symbol.as_str().to_ascii_lowercase(),
                    SpotRules::from_symbol(s),
                )
            })
            .collect();
        self.spot_at = Some(now_ms);
    }

    /// Replaces the swap rules with those of `list`, loaded at `now_ms`.
    pub fn load_swap(&mut self, list: &[Instrument], now_ms: i64) {
        self.swap = list
            .iter()
            .map(|i| {
                (
                    i.instrument_id.to_ascii_uppercase(),
                    SwapRules::from_instrument(i),
                )
            })
            .collect();
        self.swap_at = Some(now_ms);
    }

    /// Adds (or replaces) the rules of `list` without dropping the others (to merge the
    /// simulated instruments with the real ones).
    pub fn merge_swap(&mut self, list: &[Instrument]) {
        for i in list {
            self.swap.insert(
                i.instrument_id.to_ascii_uppercase(),
                SwapRules::from_instrument(i),
            );
        }
    }

    /// The rules of `pair` (any case), if loaded and listed.
    pub fn spot(&self, pair: &str) -> Option<&SpotRules> {
        self.spot.get(&pair.to_ascii_lowercase())
    }

    /// The rules of `instrument_id` (any case), if loaded and listed.
    pub fn swap(&self, instrument_id: &str) -> Option<&SwapRules> {
        self.swap.get(&instrument_id.to_ascii_uppercase())
    }

    /// Forgets both families (the next check reloads them).
    pub fn invalidate(&mut self) {
        self.spot_at = None;
        self.swap_at = None;
    }
}

/// The session's rules: the cache is kept in the session ([`Session`] holds it without naming
/// it) and these lookups, which name the rules' endpoints, live here, so that the session
/// names no endpoint and imports nothing from `rules`.
impl Session {
    /// Runs `f` on this session's cache (made on first use with the builder's refresh).
    fn rules_cache<R>(&self, f: impl FnOnce(&mut RulesCache) -> R) -> R {
        let refresh = self.rules_refresh().unwrap_or(RulesCache::DEFAULT_REFRESH);
        self.attached().with(|| RulesCache::new(refresh), f)
    }

    /// The rules of spot `pair`, when fresh ones are cached; else the request that loads them
    /// (send it and hand the answer to [`Session::load_spot_rules`]); or
    /// [`RulesLookup::Unlisted`] when fresh rules do not list the pair.
    pub fn spot_rules(&self, pair: &str) -> RulesLookup<SpotRules, TradesSymbolsRequest> {
        let now = self.now().0;
        self.rules_cache(|cache| {
            if cache.spot_is_stale(now) {
                return RulesLookup::Load(RulesCache::spot_request());
            }
            match cache.spot(pair) {
                Some(r) => RulesLookup::Ready(r.clone()),
                None => RulesLookup::Unlisted,
            }
        })
    }

    /// Caches the spot rules of `list` (the answer of `GET /v3/trades/symbols`).
    pub fn load_spot_rules(&self, list: &SymbolList) {
        let now = self.now().0;
        self.rules_cache(|cache| cache.load_spot(list, now));
    }

    /// The rules of swap `instrument_id`, like [`Session::spot_rules`].
    pub fn swap_rules(&self, instrument_id: &str) -> RulesLookup<SwapRules, InstrumentsRequest> {
        let now = self.now().0;
        self.rules_cache(|cache| {
            if cache.swap_is_stale(now) {
                return RulesLookup::Load(RulesCache::swap_request());
            }
            match cache.swap(instrument_id) {
                Some(r) => RulesLookup::Ready(r.clone()),
                None => RulesLookup::Unlisted,
            }
        })
    }

    /// Caches the swap rules of `list` (the answer of `GET /swap/v2/public/instruments`).
    pub fn load_swap_rules(&self, list: &[Instrument]) {
        let now = self.now().0;
        self.rules_cache(|cache| cache.load_swap(list, now));
    }

    /// Forgets the cached market rules: the next lookup loads them again.
    pub fn invalidate_rules(&self) {
        self.rules_cache(RulesCache::invalidate);
    }
}
