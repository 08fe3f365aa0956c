//! Pagination as pure state machines: a [`Pager`] hands out the request for the next page and
//! is fed the decoded answer, returning the page's new items. Transports loop over it (an
//! iterator in `digifinex-ureq`, a stream in `digifinex-hyper`); nothing here does I/O.
//!
//! Two strategies cover the listing endpoints:
//!
//! * [`IdPager`]: deposit and withdrawal history, which page by record id (`from`) in a direction
//!   (`direct`). Whether `from` is inclusive is not documented, so the pager asks from the last
//!   id it handed out and drops that record if it comes back; it stops at a short or empty page.
//! * [`WindowPager`]: time-windowed listings (spot order history and own trades, which reach
//!   back at most 30 days; swap bills, funding fees, transfers, order history and fills, at most
//!   100 items per page). It walks from the newest time back to the oldest in windows; when a
//!   page comes back full it narrows the window's end to the oldest time on that page and asks
//!   again, dropping the items at that boundary time it already handed out. This assumes (as the
//!   exchange and the simulator do) that a full page holds the *newest* items of its window.
//!   When more than a page of items share one time unit the rest of that unit cannot be reached;
//!   the pager then moves on and reports it through [`WindowPager::truncated`].
//!
//! ```
//! use digifinex_core::paging::{Pager, WindowPager};
//! use digifinex_core::spot::{Market, MyTradesRequest};
//! use digifinex_core::TimestampMillis;
//!
//! let now = TimestampMillis(1_700_000_000_000);
//! // Own trades of the last 30 days, newest first, in windows of at most 3 days.
//! let mut pager = WindowPager::lookback(MyTradesRequest::new(Market::Spot).symbol("btc_usdt"), now);
//! let first = pager.next_request(now).expect("a first page");
//! # let _ = first;
//! ```

use std::collections::HashMap;
use std::marker::PhantomData;

use crate::endpoint::Endpoint;
use crate::spot::{
    DepositHistoryRequest, DepositRecord, HistoryDirection, MyTradesRequest, Order,
    OrderHistoryRequest, OwnTrade, WithdrawHistoryRequest, WithdrawRecord,
};
use crate::swap;
use crate::types::{TimestampMillis, TimestampSecs};

/// A listing walked page by page. See the module docs for the loop.
pub trait Pager {
    /// The endpoint asked for each page.
    type Request: Endpoint;
    /// One listed item.
    type Item;

    /// The request for the next page at time `now` (the session's time, used to respect
    /// look-back limits), or `None` when the listing is exhausted.
    fn next_request(&mut self, now: TimestampMillis) -> Option<Self::Request>;

    /// Feeds the answer to the last request; returns the items not handed out before, in the
    /// server's order, and advances the pager.
    fn on_page(&mut self, output: <Self::Request as Endpoint>::Output) -> Vec<Self::Item>;
}

// ---------------------------------------------------------------------------------------------
// Id cursor (deposit and withdrawal history)

/// A listing paged by record id and direction (`from` + `direct`).
pub trait IdListing: Endpoint + Sized {
    /// One record.
    type Item;
    /// The largest page size the endpoint accepts.
    const MAX_SIZE: u32;
    /// The request for one page.
    fn page_request(
        currency: Option<&str>,
        from: Option<u64>,
        size: u32,
        direct: HistoryDirection,
    ) -> Self;
    /// The records of an answer.
    fn into_items(output: Self::Output) -> Vec<Self::Item>;
    /// A record's numeric id, when it has one.
    fn item_id(item: &Self::Item) -> Option<u64>;
}

impl IdListing for DepositHistoryRequest {
    type Item = DepositRecord;
    const MAX_SIZE: u32 = 500;
    fn page_request(
        currency: Option<&str>,
        from: Option<u64>,
        size: u32,
        direct: HistoryDirection,
    ) -> Self {
        let mut r = DepositHistoryRequest::new().size(size).direct(direct);
        if let Some(c) = currency {
            r = r.currency(c);
        }
        if let Some(f) = from {
            r = r.from(f);
        }
        r
    }
    fn into_items(output: Self::Output) -> Vec<DepositRecord> {
        output.data
    }
    fn item_id(item: &DepositRecord) -> Option<u64> {
        item.id.trim().parse().ok()
    }
}

impl IdListing for WithdrawHistoryRequest {
    type Item = WithdrawRecord;
    const MAX_SIZE: u32 = 500;
    fn page_request(
        currency: Option<&str>,
        from: Option<u64>,
        size: u32,
        direct: HistoryDirection,
    ) -> Self {
        let mut r = WithdrawHistoryRequest::new().size(size).direct(direct);
        if let Some(c) = currency {
            r = r.currency(c);
        }
        if let Some(f) = from {
            r = r.from(f);
        }
        r
    }
    fn into_items(output: Self::Output) -> Vec<WithdrawRecord> {
        output.data
    }
    fn item_id(item: &WithdrawRecord) -> Option<u64> {
        item.id.trim().parse().ok()
    }
}

/// Walks a `from` + `direct` listing ([`DepositPager`], [`WithdrawPager`]).
///
/// [`HistoryDirection::Prev`] lists ascending from `from` (default: the first record),
/// [`HistoryDirection::Next`] descending from `from` (default: the newest record).
#[derive(Debug, Clone)]
pub struct IdPager<R> {
    currency: Option<String>,
    size: u32,
    direct: HistoryDirection,
    from: Option<u64>,
    last: Option<u64>,
    done: bool,
    listing: PhantomData<fn() -> R>,
}

/// Pages through deposit history.
pub type DepositPager = IdPager<DepositHistoryRequest>;
/// Pages through withdrawal history.
pub type WithdrawPager = IdPager<WithdrawHistoryRequest>;

impl<R: IdListing> IdPager<R> {
    /// Every record in `direct` order, 100 per page.
    pub fn new(direct: HistoryDirection) -> Self {
        IdPager {
            currency: None,
            size: 100,
            direct,
            from: None,
            last: None,
            done: false,
            listing: PhantomData,
        }
    }
    /// Only records of `currency`.
    pub fn currency(mut self, currency: impl Into<String>) -> Self {
        self.currency = Some(currency.into());
        self
    }
    /// Records per page, clamped to `2..=MAX_SIZE` (two, so that an inclusive `from` still
    /// makes progress).
    pub fn size(mut self, size: u32) -> Self {
        self.size = size.clamp(2, R::MAX_SIZE);
        self
    }
    /// Start at this record id (included).
    pub fn from(mut self, id: u64) -> Self {
        self.from = Some(id);
        self
    }
    /// Whether the listing is exhausted.
    pub fn is_done(&self) -> bool {
        self.done
    }

    fn beyond(&self, id: u64, last: u64) -> bool {
        match self.direct {
            HistoryDirection::Prev => id > last,
            HistoryDirection::Next => id < last,
        }
    }
}

impl<R: IdListing> Pager for IdPager<R> {
    type Request = R;
    type Item = R::Item;

    fn next_request(&mut self, _now: TimestampMillis) -> Option<R> {
        if self.done {
            return None;
        }
        let from = self.last.or(self.from);
        Some(R::page_request(
            self.currency.as_deref(),
            from,
            self.size,
            self.direct,
        ))
    }

    fn on_page(&mut self, output: R::Output) -> Vec<R::Item> {
        let items = R::into_items(output);
        let raw = items.len();
        let kept: Vec<R::Item> = match self.last {
            None => items,
            Some(last) => items
                .into_iter()
                .filter(|it| R::item_id(it).is_none_or(|id| self.beyond(id, last)))
                .collect(),
        };
        let next = kept
            .iter()
            .filter_map(R::item_id)
            .reduce(|a, b| match self.direct {
                HistoryDirection::Prev => a.max(b),
                HistoryDirection::Next => a.min(b),
            });
        match next {
            Some(id)
                if !kept.is_empty() && raw >= usize::try_from(self.size).unwrap_or(usize::MAX) =>
            {
                self.last = Some(id)
            }
            _ => self.done = true,
        }
        kept
    }
}

// ---------------------------------------------------------------------------------------------
// Time windows

/// A listing filtered by a time window and limited per page.
pub trait WindowListing: Endpoint + Clone {
    /// One item.
    type Item;
    /// The largest `limit` the endpoint accepts.
    const MAX_LIMIT: u32;
    /// Milliseconds per unit of the window bounds (1000 for spot seconds, 1 for swap ms).
    const UNIT_MS: i64;
    /// How far back the window may reach, in ms, when the server limits it.
    const LOOKBACK_MS: Option<i64>;
    /// The default window length in units (`None`: the whole range at once).
    const DEFAULT_SPAN: Option<i64>;
    /// Whether the server requires `end > start` (a window of one unit is then widened).
    const STRICT_WINDOW: bool;
    /// This request restricted to `[start, end]` (inclusive, in units) and `limit` items.
    fn with_window(self, start: i64, end: i64, limit: u32) -> Self;
    /// The items of an answer.
    fn into_items(output: Self::Output) -> Vec<Self::Item>;
    /// An item's time in units, when known.
    fn item_time(item: &Self::Item) -> Option<i64>;
    /// A key telling items apart (an id, or the item's content when it has none).
    fn item_key(item: &Self::Item) -> String;
}

const DAY_MS: i64 = 86_400_000;
/// Kept between the look-back limit and the oldest window start, for clock drift while paging.
const LOOKBACK_MARGIN_MS: i64 = 60_000;

impl WindowListing for OrderHistoryRequest {
    type Item = Order;
    const MAX_LIMIT: u32 = 100;
    const UNIT_MS: i64 = 1000;
    const LOOKBACK_MS: Option<i64> = Some(crate::spot::MAX_LOOKBACK_DAYS * DAY_MS);
    const DEFAULT_SPAN: Option<i64> = Some(3 * 86_400);
    const STRICT_WINDOW: bool = false;
    fn with_window(self, start: i64, end: i64, limit: u32) -> Self {
        self.start_time(TimestampSecs(start))
            .end_time(TimestampSecs(end))
            .limit(limit)
    }
    fn into_items(output: Self::Output) -> Vec<Order> {
        output.data
    }
    fn item_time(item: &Order) -> Option<i64> {
        item.created_date.map(|t| t.0)
    }
    fn item_key(item: &Order) -> String {
        item.order_id.clone()
    }
}

impl WindowListing for MyTradesRequest {
    type Item = OwnTrade;
    const MAX_LIMIT: u32 = 500;
    const UNIT_MS: i64 = 1000;
    const LOOKBACK_MS: Option<i64> = Some(crate::spot::MAX_LOOKBACK_DAYS * DAY_MS);
    const DEFAULT_SPAN: Option<i64> = Some(3 * 86_400);
    const STRICT_WINDOW: bool = false;
    fn with_window(self, start: i64, end: i64, limit: u32) -> Self {
        self.start_time(TimestampSecs(start))
            .end_time(TimestampSecs(end))
            .limit(limit)
    }
    fn into_items(output: Self::Output) -> Vec<OwnTrade> {
        output.list
    }
    fn item_time(item: &OwnTrade) -> Option<i64> {
        item.timestamp.map(|t| t.0)
    }
    fn item_key(item: &OwnTrade) -> String {
        item.id.clone()
    }
}

/// A swap list endpoint walked in time windows: milliseconds, at most 100 rows per page, the
/// server requiring `end > start`; its answer is the rows. Each one says how to set its window
/// and how to read a row's time and key; [`WindowListing`] follows.
pub trait SwapWindow: Endpoint<Output = Vec<Self::Row>> + Clone {
    /// One row of the answer.
    type Row;
    /// This request restricted to `[start, end]` (ms) and `limit` rows.
    fn window(self, start: TimestampMillis, end: TimestampMillis, limit: u32) -> Self;
    /// A row's time (ms), when known.
    fn row_time(row: &Self::Row) -> Option<i64>;
    /// A key telling rows apart.
    fn row_key(row: &Self::Row) -> String;
}

impl<T: SwapWindow> WindowListing for T {
    type Item = T::Row;
    const MAX_LIMIT: u32 = 100;
    const UNIT_MS: i64 = 1;
    const LOOKBACK_MS: Option<i64> = None;
    const DEFAULT_SPAN: Option<i64> = None;
    const STRICT_WINDOW: bool = true;
    fn with_window(self, start: i64, end: i64, limit: u32) -> Self {
        self.window(TimestampMillis(start), TimestampMillis(end), limit)
    }
    fn into_items(output: Vec<T::Row>) -> Vec<T::Row> {
        output
    }
    fn item_time(item: &T::Row) -> Option<i64> {
        T::row_time(item)
    }
    fn item_key(item: &T::Row) -> String {
        T::row_key(item)
    }
}

impl SwapWindow for swap::FinanceRecordRequest {
    type Row = swap::Bill;
    fn window(self, start: TimestampMillis, end: TimestampMillis, limit: u32) -> Self {
        self.start_timestamp(start).end_timestamp(end).limit(limit)
    }
    fn row_time(b: &swap::Bill) -> Option<i64> {
        b.timestamp.map(|t| t.0)
    }
    fn row_key(b: &swap::Bill) -> String {
        content_key(b)
    }
}

impl SwapWindow for swap::FundingFeeRequest {
    type Row = swap::FundingFee;
    fn window(self, start: TimestampMillis, end: TimestampMillis, limit: u32) -> Self {
        self.start_timestamp(start).end_timestamp(end).limit(limit)
    }
    fn row_time(f: &swap::FundingFee) -> Option<i64> {
        f.timestamp.map(|t| t.0)
    }
    fn row_key(f: &swap::FundingFee) -> String {
        content_key(f)
    }
}

impl SwapWindow for swap::TransferRecordRequest {
    type Row = swap::TransferRecord;
    fn window(self, start: TimestampMillis, end: TimestampMillis, limit: u32) -> Self {
        self.start_timestamp(start).end_timestamp(end).limit(limit)
    }
    fn row_time(t: &swap::TransferRecord) -> Option<i64> {
        t.timestamp.map(|t| t.0)
    }
    fn row_key(t: &swap::TransferRecord) -> String {
        t.transfer_id.clone()
    }
}

impl SwapWindow for swap::HistoryOrdersRequest {
    type Row = swap::Order;
    fn window(self, start: TimestampMillis, end: TimestampMillis, limit: u32) -> Self {
        self.start_timestamp(start).end_timestamp(end).limit(limit)
    }
    fn row_time(o: &swap::Order) -> Option<i64> {
        o.insert_time.or(o.time_stamp).map(|t| t.0)
    }
    fn row_key(o: &swap::Order) -> String {
        o.order_id.clone()
    }
}

impl SwapWindow for swap::HistoryTradesRequest {
    type Row = swap::Fill;
    fn window(self, start: TimestampMillis, end: TimestampMillis, limit: u32) -> Self {
        self.start_timestamp(start).end_timestamp(end).limit(limit)
    }
    fn row_time(f: &swap::Fill) -> Option<i64> {
        f.trade_time.map(|t| t.0)
    }
    fn row_key(f: &swap::Fill) -> String {
        f.trade_id.clone()
    }
}

/// The JSON text of an item without an id (identical items count separately, see
/// [`WindowPager`]).
fn content_key<T: serde::Serialize>(item: &T) -> String {
    serde_json::to_string(item).unwrap_or_default()
}

/// Walks a time-windowed listing from the newest time back to the oldest (see the module docs).
#[derive(Debug, Clone)]
pub struct WindowPager<R> {
    template: R,
    oldest: i64,
    newest: i64,
    end: i64,
    span: Option<i64>,
    limit: u32,
    window_start: i64,
    boundary: Option<(i64, HashMap<String, usize>)>,
    truncated: bool,
    done: bool,
}

impl<R: WindowListing> WindowPager<R> {
    /// Lists `template`'s items with times in `[start, end]` (inclusive, in the endpoint's unit:
    /// seconds for spot, ms for swap), newest first, `MAX_LIMIT` per page, in windows of the
    /// endpoint's default span. The other filters of `template` (symbol, instrument, ...) are
    /// kept; its own window and limit are replaced.
    pub fn new(template: R, start: i64, end: i64) -> Self {
        WindowPager {
            template,
            oldest: start,
            newest: end,
            end,
            span: R::DEFAULT_SPAN,
            limit: R::MAX_LIMIT,
            window_start: end,
            boundary: None,
            truncated: false,
            done: end < start,
        }
    }

    /// Everything the server still keeps: from the look-back limit (30 days for spot; swap has
    /// none, so from the epoch) up to `now`.
    pub fn lookback(template: R, now: TimestampMillis) -> Self {
        let end = now.0.div_euclid(R::UNIT_MS);
        let start = match R::LOOKBACK_MS {
            Some(lb) => ceil_div(
                now.0.saturating_sub(lb).saturating_add(LOOKBACK_MARGIN_MS),
                R::UNIT_MS,
            ),
            None => 0,
        };
        WindowPager::new(template, start, end)
    }

    /// Window length in units (at least 1); `None` asks for the whole range at once.
    pub fn span(mut self, span: Option<i64>) -> Self {
        self.span = span.map(|s| s.max(1));
        self
    }

    /// Items per page, clamped to `1..=MAX_LIMIT` (default `MAX_LIMIT`).
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = limit.clamp(1, R::MAX_LIMIT);
        self
    }

    /// Whether the listing is exhausted.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Whether items were skipped because more than one page of them shared one time unit.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    fn oldest_at(&self, now: TimestampMillis) -> i64 {
        match R::LOOKBACK_MS {
            Some(lb) => self.oldest.max(ceil_div(
                now.0.saturating_sub(lb).saturating_add(LOOKBACK_MARGIN_MS),
                R::UNIT_MS,
            )),
            None => self.oldest,
        }
    }

    /// The window is exhausted: continue below it.
    fn below(&mut self, start: i64) {
        self.end = start.saturating_sub(1);
        self.boundary = None;
        if self.end < self.oldest {
            self.done = true;
        }
    }
}

fn ceil_div(a: i64, b: i64) -> i64 {
    let q = a.div_euclid(b);
    if a.rem_euclid(b) == 0 {
        q
    } else {
        q.saturating_add(1)
    }
}

impl<R: WindowListing> Pager for WindowPager<R> {
    type Request = R;
    type Item = R::Item;

    fn next_request(&mut self, now: TimestampMillis) -> Option<R> {
        if self.done {
            return None;
        }
        let oldest = self.oldest_at(now);
        if self.end < oldest {
            self.done = true;
            return None;
        }
        let mut start = match self.span {
            Some(span) => oldest.max(self.end.saturating_sub(span).saturating_add(1)),
            None => oldest,
        };
        if R::STRICT_WINDOW && start >= self.end {
            start = self.end.saturating_sub(1);
        }
        self.window_start = start;
        Some(
            self.template
                .clone()
                .with_window(start, self.end, self.limit),
        )
    }

    fn on_page(&mut self, output: R::Output) -> Vec<R::Item> {
        let items = R::into_items(output);
        let full = items.len() >= usize::try_from(self.limit).unwrap_or(usize::MAX);
        let min_time = items.iter().filter_map(R::item_time).min();
        let items_span_one_unit =
            min_time.is_some() && min_time == items.iter().filter_map(R::item_time).max();
        let mut skip = self.boundary.as_ref().map(|(t, seen)| (*t, seen.clone()));
        let (oldest, newest) = (self.oldest, self.newest);
        let kept: Vec<R::Item> = items
            .into_iter()
            .filter(|it| {
                let t = R::item_time(it);
                if t.is_some_and(|t| t < oldest || t > newest) {
                    return false;
                }
                if let (Some((bt, seen)), Some(t)) = (skip.as_mut(), t) {
                    if t == *bt {
                        if let Some(n) = seen.get_mut(&R::item_key(it)) {
                            if let Some(left) = n.checked_sub(1) {
                                *n = left;
                                return false;
                            }
                        }
                    }
                }
                true
            })
            .collect();
        let window_start = self.window_start;
        match min_time {
            Some(t) if full && items_span_one_unit => {
                // A whole page inside one time unit: the rest of the unit (if any) cannot be
                // reached with this limit; continue below it.
                self.truncated = true;
                self.below(t);
            }
            Some(t) if full && t >= window_start && t <= self.end => {
                let new_here = kept
                    .iter()
                    .filter(|it| R::item_time(it) == Some(t))
                    .map(R::item_key);
                match &mut self.boundary {
                    Some((bt, seen)) if *bt == t => {
                        if kept.is_empty() {
                            // A whole page inside one time unit already seen: skip the unit.
                            self.truncated = true;
                            self.below(t);
                            return kept;
                        }
                        for k in new_here {
                            let n = seen.entry(k).or_insert(0);
                            *n = n.saturating_add(1);
                        }
                    }
                    _ => {
                        let mut seen: HashMap<String, usize> = HashMap::new();
                        for k in new_here {
                            let n = seen.entry(k).or_insert(0);
                            *n = n.saturating_add(1);
                        }
                        self.boundary = Some((t, seen));
                    }
                }
                self.end = t;
            }
            _ => self.below(window_start),
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::{Meta, Method, Params};
    use crate::error::Error;
    use crate::Family;

    /// A fake windowed listing over `(time, id)` items.
    #[derive(Debug, Clone, Default, PartialEq)]
    struct Fake {
        window: Option<(i64, i64, u32)>,
    }

    impl Endpoint for Fake {
        type Output = Vec<(i64, String)>;
        const META: Meta = Meta {
            name: "t.fake",
            family: Family::Swap,
            method: Method::Get,
            path: "/x",
            signed: false,
            idempotent: true,
            success_code: 0,
            weight: None,
        };
        fn encode(&self, _: &mut Params) -> Result<(), Error> {
            Ok(())
        }
    }

    impl WindowListing for Fake {
        type Item = (i64, String);
        const MAX_LIMIT: u32 = 3;
        const UNIT_MS: i64 = 1000;
        const LOOKBACK_MS: Option<i64> = Some(100_000);
        const DEFAULT_SPAN: Option<i64> = Some(10);
        const STRICT_WINDOW: bool = false;
        fn with_window(self, start: i64, end: i64, limit: u32) -> Self {
            Fake {
                window: Some((start, end, limit)),
            }
        }
        fn into_items(output: Self::Output) -> Vec<(i64, String)> {
            output
        }
        fn item_time(item: &(i64, String)) -> Option<i64> {
            Some(item.0)
        }
        fn item_key(item: &(i64, String)) -> String {
            item.1.clone()
        }
    }

    /// A server: answers the newest `limit` items of the window, newest first.
    fn serve(all: &[(i64, &str)], req: &Fake) -> Vec<(i64, String)> {
        let (s, e, l) = req.window.unwrap();
        let mut v: Vec<_> = all
            .iter()
            .filter(|(t, _)| *t >= s && *t <= e)
            .map(|(t, id)| (*t, (*id).to_owned()))
            .collect();
        v.sort_by_key(|x| std::cmp::Reverse(x.0));
        v.truncate(usize::try_from(l).unwrap());
        v
    }

    fn walk(all: &[(i64, &str)], mut pager: WindowPager<Fake>, now: i64) -> (Vec<String>, usize) {
        let mut out = Vec::new();
        let mut requests = 0;
        while let Some(req) = pager.next_request(TimestampMillis(now)) {
            requests += 1;
            assert!(requests < 1000, "no progress");
            out.extend(pager.on_page(serve(all, &req)).into_iter().map(|x| x.1));
        }
        (out, requests)
    }

    #[test]
    fn windows_walk_back_to_the_lookback_and_narrow_on_full_pages() {
        // now = 1000 s; look-back 100 s (+60 s margin) -> oldest 960.
        let all = [
            (999, "a"),
            (995, "b"),
            (995, "c"),
            (990, "f"),
            (985, "g"),
            (961, "h"),
            (959, "too-old"),
        ];
        let pager = WindowPager::lookback(Fake::default(), TimestampMillis(1_000_000));
        let (got, _) = walk(&all, pager, 1_000_000);
        assert_eq!(got, ["a", "b", "c", "f", "g", "h"]);
    }

    #[test]
    fn a_unit_with_more_than_a_page_is_skipped_and_reported() {
        let all = [(50, "a"), (50, "b"), (50, "c"), (50, "d"), (40, "e")];
        let mut pager = WindowPager::new(Fake::default(), 0, 60);
        let mut got = Vec::new();
        while let Some(req) = pager.next_request(TimestampMillis(10_000)) {
            got.extend(pager.on_page(serve(&all, &req)).into_iter().map(|x| x.1));
        }
        assert!(pager.truncated());
        assert_eq!(got.len(), 3 + 1);
        assert!(got.contains(&"e".to_owned()));
    }

    #[test]
    fn identical_items_at_a_boundary_are_counted_not_merged() {
        let all = [(9, "x"), (9, "x"), (8, "y"), (8, "y"), (7, "z")];
        let pager = WindowPager::new(Fake::default(), 0, 9);
        let (got, _) = walk(&all, pager, 10_000);
        assert_eq!(got, ["x", "x", "y", "y", "z"]);
    }

    #[test]
    fn empty_range_and_whole_range_span() {
        let mut p = WindowPager::new(Fake::default(), 10, 5);
        assert!(p.next_request(TimestampMillis(10_000)).is_none());
        let mut p = WindowPager::new(Fake::default(), 0, 50).span(None);
        let r = p.next_request(TimestampMillis(10_000)).unwrap();
        assert_eq!(r.window, Some((0, 50, 3)));
    }

    fn record(id: u64) -> DepositRecord {
        serde_json::from_str(&format!(
            r#"{{"id":{id},"currency":"usdt","amount":"1","address":"a","state":3}}"#
        ))
        .unwrap()
    }

    /// A deposit server with ids 1..=n; `inclusive` decides whether `from` is included.
    fn deposits(n: u64, req: &DepositHistoryRequest, inclusive: bool) -> Vec<DepositRecord> {
        let mut p = Params::new(TimestampMillis(0));
        req.encode(&mut p).unwrap();
        let q: HashMap<String, String> = form_urlencoded::parse(p.as_str().as_bytes())
            .into_owned()
            .collect();
        let size: usize = q["size"].parse().unwrap();
        let prev = q["direct"] == "prev";
        let from: Option<u64> = q.get("from").map(|f| f.parse().unwrap());
        let ids: Vec<u64> = if prev {
            let s = from.map_or(1, |f| if inclusive { f } else { f + 1 });
            (s..=n).take(size).collect()
        } else {
            let s = from.map_or(n, |f| if inclusive { f } else { f.saturating_sub(1) });
            (1..=s).rev().take(size).collect()
        };
        ids.into_iter().map(record).collect()
    }

    #[test]
    fn id_pager_walks_both_directions_with_either_from_semantics() {
        for inclusive in [true, false] {
            for direct in [HistoryDirection::Prev, HistoryDirection::Next] {
                let mut pager = DepositPager::new(direct).size(4);
                let mut got = Vec::new();
                let mut n = 0;
                while let Some(req) = pager.next_request(TimestampMillis(0)) {
                    n += 1;
                    assert!(n < 100);
                    let page = deposits(10, &req, inclusive);
                    got.extend(pager.on_page(crate::spot::DepositHistory { data: page }));
                }
                let ids: Vec<u64> = got.iter().map(|r| r.id.parse().unwrap()).collect();
                let mut want: Vec<u64> = (1..=10).collect();
                if direct == HistoryDirection::Next {
                    want.reverse();
                }
                assert_eq!(ids, want, "inclusive {inclusive} {direct}");
            }
        }
    }

    #[test]
    fn id_pager_starts_at_from_inclusive() {
        let mut pager = DepositPager::new(HistoryDirection::Prev).from(7);
        let req = pager.next_request(TimestampMillis(0)).unwrap();
        let page = deposits(10, &req, true);
        let got = pager.on_page(crate::spot::DepositHistory { data: page });
        assert_eq!(got.first().map(|r| r.id.as_str()), Some("7"));
        assert!(pager.is_done());
    }
}
