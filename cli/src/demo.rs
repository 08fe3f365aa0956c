//! `digifinex demo`: a guided tour of the client against an embedded simulator.
//!
//! Every step goes through the typed API of `digifinex-core` and the blocking client, exactly as
//! an application would; the output is a heading per step and one aligned line per fact. A
//! failing step stops the tour with exit code 1 and names the step.

use std::io::{self, Write};
use std::time::Instant;

use digifinex_core::reconcile::{SnapshotPolicy, Verdict, Write as TrackedWrite};
use digifinex_core::rules::{Checks, Rounding};
use digifinex_core::spot::{self, Market, TransferAccount};
use digifinex_core::swap::{self, CopyCurrentView, CopyMarginMode, CopyMarketStyle, CopyPricing};
use digifinex_core::swap::{MarketStyle, OrderSide, SponsorSide, TriggerPriceType};
use digifinex_core::track::{Answer as TrackAnswer, Change, TrackConfig, Tracker};
use digifinex_core::{Amount, Credentials, Decimal, Error, Family, Price, Size};
use digifinex_sim::{FaultKind, FaultRule, SimConfig};
use digifinex_ureq::Client;

use crate::live::start_sim;
use crate::{describe, Failure};

const SYMBOL: &str = "btc_usdt";
const INSTRUMENT: &str = "BTCUSDTPERP";

/// The tour's state: the client, where the output goes and the step under way.
struct Tour<W: Write> {
    client: Client,
    out: W,
    step: &'static str,
    number: usize,
}

impl<W: Write> Tour<W> {
    /// Starts step `name`: prints its heading.
    fn step(&mut self, name: &'static str) -> Result<(), Failure> {
        self.number = self.number.saturating_add(1);
        self.step = name;
        writeln!(self.out, "\n{:>2}. {name}", self.number)?;
        Ok(())
    }

    /// One line of the current step: a label column and the facts.
    fn line(&mut self, label: &str, facts: impl std::fmt::Display) -> Result<(), Failure> {
        writeln!(self.out, "    {label:<13} {facts}")?;
        Ok(())
    }

    /// Sends `request` and names the current step if it fails.
    fn send<E: digifinex_core::Endpoint>(&self, request: &E) -> Result<E::Output, Failure> {
        self.client.send(request).map_err(|e| self.failed(&e))
    }

    fn failed(&self, e: &Error) -> Failure {
        Failure::Demo {
            step: self.step,
            message: describe(e),
        }
    }

    /// A result that is not what the step expects.
    fn wrong(&self, what: String) -> Failure {
        Failure::Demo {
            step: self.step,
            message: what,
        }
    }
}

/// `1700000000` as `2023-11-14 22:13:20 UTC` (proleptic Gregorian, no time zone database).
// Bound: `secs` is the server's time, any `i64`; `|days| <= i64::MAX / 86400 < 1.1 * 10^14`, so
// `z` and `era * 400` stay below 10^15 in magnitude; `doe` is in `0..146097`, `yoe` in `0..400`,
// `doy` in `0..366`, `mp` in `0..12`, `rem` in `0..86400`: every intermediate is far inside `i64`.
#[allow(clippy::arithmetic_side_effects)]
fn utc(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn opt(d: Option<Decimal>) -> String {
    d.map_or_else(|| "-".to_owned(), |d| d.to_string())
}

/// An optional value through its `Debug` form (`FullyExecuted`), `-` when absent.
fn opt_debug<T: std::fmt::Debug>(v: Option<&T>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{v:?}"))
}

fn dec(text: &str) -> Decimal {
    // Only literals of this file go through here.
    text.parse().unwrap_or_default()
}

pub(crate) fn run() -> Result<(), Failure> {
    let started = Instant::now();
    let sim = start_sim(SimConfig::default().without_limits())?;
    let demo = sim.control().demo_account();
    let client = Client::builder()
        .spot_base_url(sim.spot_base_url())
        .swap_base_url(sim.swap_base_url())
        .credentials(Credentials::new(
            demo.keys.key.clone(),
            demo.keys.secret.clone(),
        ))
        .allow_http(true)
        .build()
        .map_err(|e| Failure::Other(describe(&e)))?;
    let mut t = Tour {
        client,
        out: io::stdout().lock(),
        step: "start",
        number: 0,
    };
    writeln!(
        t.out,
        "DigiFinex demo against an embedded simulator at {} (demo account {})",
        sim.swap_base_url(),
        demo.account
    )?;

    // 1. Clocks.
    t.step("server time and clock offset")?;
    let offset = t.client.sync_time(Family::Spot).map_err(|e| t.failed(&e))?;
    let time = t.send(&spot::ServerTimeRequest)?;
    t.line(
        "spot",
        format_args!("{}  offset {offset:+} ms", utc(time.server_time.0)),
    )?;
    let swap_offset = t.client.sync_time(Family::Swap).map_err(|e| t.failed(&e))?;
    let swap_time = t.send(&swap::ServerTimeRequest)?;
    t.line(
        "swap",
        format_args!(
            "{}  offset {swap_offset:+} ms",
            utc(swap_time.0.div_euclid(1000))
        ),
    )?;

    // 2. Markets and a ticker.
    t.step("markets and a ticker")?;
    let markets = t.send(&spot::MarketsRequest)?;
    let names: Vec<&str> = markets.data.iter().map(|m| m.market.as_str()).collect();
    t.line(
        "spot markets",
        format_args!("{}: {}", names.len(), names.join(" ")),
    )?;
    let tickers = t.send(&spot::TickerRequest::new().symbol(SYMBOL))?;
    let ticker = tickers
        .ticker
        .first()
        .ok_or_else(|| t.wrong(format!("no ticker for {SYMBOL}")))?;
    t.line(
        SYMBOL,
        format_args!(
            "last {}  bid {}  ask {}  24h change {}",
            opt(ticker.last),
            opt(ticker.buy),
            opt(ticker.sell),
            ticker
                .change_percent
                .map_or_else(|| "-".to_owned(), |p| format!("{p} %"))
        ),
    )?;

    // 3. Order book.
    t.step("order book (top 3 levels)")?;
    let book = t.send(&spot::OrderBookRequest::new(SYMBOL).limit(3))?;
    // The levels in the order they were sent (undocumented: the venue publishes asks highest
    // price first, the simulator lowest first); the best levels are found by price.
    for level in &book.asks {
        t.line(
            "ask",
            format_args!("{:>10}  {:>8}", level.price, level.amount),
        )?;
    }
    for level in &book.bids {
        t.line(
            "bid",
            format_args!("{:>10}  {:>8}", level.price, level.amount),
        )?;
    }
    let best_bid = book
        .best_bid()
        .map(|l| l.price)
        .ok_or_else(|| t.wrong("empty bid side".to_owned()))?;
    t.line(
        "best",
        format_args!(
            "bid {best_bid}  ask {}  spread {}",
            opt(book.best_ask().map(|l| l.price)),
            opt(book.spread())
        ),
    )?;

    // 4. Balances.
    t.step("spot balances before trading")?;
    show_balances(&mut t)?;

    // 5. A limit order placed, queried and cancelled.
    t.step("limit order: place, query, cancel")?;
    let price = best_bid
        .checked_mul(dec("0.9"))
        .ok_or_else(|| t.wrong(format!("best bid {best_bid} out of range")))?
        .round_dp(2);
    let amount = dec("0.01");
    let placed = t.send(&spot::PlaceOrderRequest::new(
        Market::Spot,
        SYMBOL,
        spot::LimitOrder::buy(Amount::new(amount), Price::new(price)),
    ))?;
    t.line(
        "placed",
        format_args!(
            "buy {amount} BTC at {price} (10% under the bid)  id {}",
            placed.order_id
        ),
    )?;
    let detail = t.send(&spot::OrderDetailRequest::new(
        Market::Spot,
        &placed.order_id,
    ))?;
    t.line(
        "queried",
        format_args!(
            "status {}  filled {} of {}",
            opt_debug(detail.data.status.as_ref()),
            opt(detail.data.executed_amount),
            opt(detail.data.amount)
        ),
    )?;
    let cancelled = t.send(&spot::CancelOrdersRequest::new(
        Market::Spot,
        [placed.order_id.clone()],
    ))?;
    if !cancelled.success.contains(&placed.order_id) {
        return Err(t.wrong(format!("order {} was not cancelled", placed.order_id)));
    }
    t.line("cancelled", format_args!("id {}", placed.order_id))?;

    // 5b. Market rules: an order off the grid, rounded before sending.
    t.step("market rules: an off-grid order rounded before sending")?;
    let rules = t.client.spot_rules(SYMBOL).map_err(|e| t.failed(&e))?;
    t.line(
        "rules",
        format_args!(
            "price step {}  amount step {}  min base amount {}  min quote value {}",
            rules
                .price
                .map_or_else(|| "-".to_owned(), |g| g.step().to_string()),
            rules
                .amount
                .map_or_else(|| "-".to_owned(), |g| g.step().to_string()),
            opt(rules.min_base_amount),
            opt(rules.min_quote_value)
        ),
    )?;
    let off_grid = spot::PlaceOrderRequest::new(
        Market::Spot,
        SYMBOL,
        spot::LimitOrder::buy(
            Amount::new(dec("0.0123456789")),
            Price::new(price + dec("0.005")),
        ),
    );
    match t.client.place_spot_checked(&off_grid, &Checks::strict()) {
        Err(Error::Rule(e)) => t.line(
            "strict",
            format_args!(
                "refused, nothing sent: `{}` off the grid (venue code {}), nearest {}",
                e.field,
                e.code().unwrap_or_default(),
                e.nearest.map_or_else(
                    || "-".to_owned(),
                    |(below, above)| format!("{} or {above}", opt(below))
                )
            ),
        )?,
        other => return Err(t.wrong(format!("an off-grid order was not refused: {other:?}"))),
    }
    let sent = t
        .client
        .place_spot_checked(&off_grid, &Checks::rounding(Rounding::Passive))
        .map_err(|e| t.failed(&e))?;
    t.line(
        "rounded",
        format_args!(
            "buy {} at {} (price down, amount truncated)  id {}",
            sent.request.order().amount(),
            opt(sent.request.order().price().map(Price::get)),
            sent.output.order_id
        ),
    )?;
    t.send(&spot::CancelOrdersRequest::new(
        Market::Spot,
        [sent.output.order_id.clone()],
    ))?;

    // 5c. The same order life seen as websocket pushes.
    t.step("order updates over the websocket")?;
    watch_order_updates(
        &mut t,
        &sim,
        Credentials::new(demo.keys.key, demo.keys.secret),
    )?;

    // 5d. An order whose answer is lost after it was applied, reconciled: without a snapshot
    // of its evidence, then with one.
    t.step("unknown outcome reconciled (answer lost after the order was applied)")?;
    let order = spot::PlaceOrderRequest::new(
        Market::Spot,
        SYMBOL,
        spot::LimitOrder::buy(Amount::new(amount), Price::new(price)),
    );
    let lose_answer = || {
        let mut fault = FaultRule::route("POST", "/v3/spot/order/new", FaultKind::DropAfterApply);
        fault.count = Some(1);
        sim.control().add_fault(fault);
    };
    lose_answer();
    let unknown = match t.client.place_spot(&order, SnapshotPolicy::Skip) {
        Err(e @ Error::OutcomeUnknown { .. }) => e,
        other => {
            return Err(t.wrong(format!(
                "the injected fault did not leave the outcome unknown: {other:?}"
            )))
        }
    };
    t.line("sent", "no answer: the outcome is unknown (never re-sent)")?;
    // Without a snapshot, a record of this order made around the time the request was built
    // could be an older identical order's (another program's): the verdict says so.
    let outcome = t.client.reconcile(&unknown).map_err(|e| t.failed(&e))?;
    let mut to_cancel = match outcome.verdicts.first() {
        Some(Verdict::Ambiguous { candidates, .. }) => {
            t.line(
                "no snapshot",
                format_args!(
                    "ambiguous: {} identical order(s) in the window, none provably this one",
                    candidates.len()
                ),
            )?;
            candidates.clone()
        }
        other => return Err(t.wrong(format!("expected an ambiguous verdict, got {other:?}"))),
    };
    // The same order sent after a snapshot of the pair's orders (2 reads): exact.
    lose_answer();
    let unknown = match t.client.place_spot(&order, SnapshotPolicy::BeforeSend) {
        Err(e @ Error::OutcomeUnknown { .. }) => e,
        other => {
            return Err(t.wrong(format!(
                "the injected fault did not leave the outcome unknown: {other:?}"
            )))
        }
    };
    let outcome = t.client.reconcile(&unknown).map_err(|e| t.failed(&e))?;
    let id = match outcome.verdicts.first() {
        Some(Verdict::Applied { id: Some(id), .. }) => id.clone(),
        other => return Err(t.wrong(format!("expected an applied order, got {other:?}"))),
    };
    t.line(
        "snapshot",
        format_args!("applied: order {id} (every older order excluded)"),
    )?;
    to_cancel.push(id.clone());
    t.send(&spot::CancelOrdersRequest::new(Market::Spot, to_cancel))?;
    t.line("cancelled", format_args!("id {id} (found, not sent twice)"))?;

    // 6. A market order.
    t.step("market order filled")?;
    let spend = dec("1000");
    // The account's state, tracked from here: the tracker takes the write's answer and reads
    // what follows (the order, then its fills with their fees, then the balances).
    let config = TrackConfig::new().fill_delay(std::time::Duration::ZERO);
    let now = t.client.session().now();
    let mut tracking = t
        .client
        .tracker(Tracker::new(Family::Spot, [SYMBOL], config, now));
    tracking.sync();
    while tracking.poll_change().is_some() {} // the opening state
    let request = spot::PlaceOrderRequest::new(
        Market::Spot,
        SYMBOL,
        spot::MarketOrder::buy(Amount::new(spend)),
    );
    let placed = t.send(&request)?;
    tracking.on_answer(
        &TrackedWrite::SpotOrder(request),
        &TrackAnswer::SpotPlaced(placed.clone()),
    );
    let filled = t
        .send(&spot::OrderDetailRequest::new(
            Market::Spot,
            &placed.order_id,
        ))?
        .data;
    if filled.executed_amount.is_none_or(|a| a.is_zero()) {
        return Err(t.wrong(format!("market order {} did not fill", placed.order_id)));
    }
    t.line(
        "filled",
        format_args!(
            "bought {} BTC for {spend} USDT  avg price {}  status {}",
            opt(filled.executed_amount),
            opt(filled.avg_price),
            opt_debug(filled.status.as_ref())
        ),
    )?;

    t.step("account state tracked: each fill once, with its fee")?;
    let mut fills = 0;
    for _ in 0..5 {
        tracking.tracker_mut().request_resync();
        tracking.sync();
        while let Some(change) = tracking.poll_change() {
            if let Change::Filled { trade, fee } = change {
                fills += 1;
                let fee = fee.map_or("not given".to_owned(), |f| {
                    format!("{} {}", f.amount, f.currency.unwrap_or_default())
                });
                t.line(
                    "fill",
                    format_args!(
                        "trade {}  {} BTC at {}  fee {fee}",
                        trade.trade_id,
                        opt(trade.amount),
                        opt(trade.price)
                    ),
                )?;
            }
        }
        if fills > 0 {
            break;
        }
    }
    if fills == 0 {
        return Err(t.wrong("the tracker reported no fill of the market order".into()));
    }

    t.step("spot balances after trading")?;
    show_balances(&mut t)?;

    // 7. Margin.
    t.step("transfer to margin")?;
    let moved = dec("500");
    t.send(&spot::TransferRequest::new(
        "usdt",
        Amount::new(moved),
        TransferAccount::Spot,
        TransferAccount::Margin,
    ))?;
    let margin = t.send(&spot::MarginAssetsRequest)?;
    let usdt = margin
        .list
        .iter()
        .find(|a| a.currency.eq_ignore_ascii_case("usdt"))
        .and_then(|a| a.free);
    t.line(
        "transferred",
        format_args!(
            "{moved} USDT spot -> margin; margin USDT free now {}",
            opt(usdt)
        ),
    )?;

    // 8. Swap leverage.
    t.step("swap leverage change")?;
    let ack = t.send(&swap::LeverageRequest::new(INSTRUMENT, dec("20")))?;
    t.line(
        INSTRUMENT,
        format_args!(
            "leverage set to {}x ({} margin)",
            opt(ack.leverage),
            ack.margin_mode.as_ref().map_or("-", |m| m.as_str())
        ),
    )?;

    // 9. A swap position opened and closed.
    t.step("swap position opened and closed")?;
    let size = Size::new(dec("10"));
    let open = t.send(&swap::PlaceOrderRequest::new(swap::OrderSpec::market(
        INSTRUMENT,
        OrderSide::OpenLong,
        size,
        MarketStyle::IocOpponent,
    )))?;
    t.line(
        "opened",
        format_args!("long {size} contracts at market  id {}", open.order_id),
    )?;
    let positions = t.send(&swap::PositionsRequest::new().instrument_id(INSTRUMENT))?;
    let position = positions
        .iter()
        .find(|p| p.position.is_some_and(|q| !q.is_zero()))
        .ok_or_else(|| t.wrong("no open position after the order".to_owned()))?;
    t.line(
        "position",
        format_args!(
            "{} {}  avg cost {}  mark {}  liq {}  pnl {}",
            position.side.as_ref().map_or("-", |s| s.as_str()),
            opt(position.position),
            opt(position.avg_cost),
            opt(position.mark_price),
            opt(position.liquidation_price),
            opt(position.unrealized_pnl)
        ),
    )?;
    let close = t.send(&swap::PlaceOrderRequest::new(swap::OrderSpec::market(
        INSTRUMENT,
        OrderSide::CloseLong,
        size,
        MarketStyle::IocOpponent,
    )))?;
    let left = t
        .send(&swap::PositionsRequest::new().instrument_id(INSTRUMENT))?
        .iter()
        .filter(|p| p.position.is_some_and(|q| !q.is_zero()))
        .count();
    t.line(
        "closed",
        format_args!(
            "at market  id {}  open positions left {left}",
            close.order_id
        ),
    )?;

    // 10. Copy trading.
    t.step("copy-trading order with TP/SL")?;
    let mark = t
        .send(&swap::TickerRequest::new(INSTRUMENT))?
        .mark_price
        .ok_or_else(|| t.wrong("no mark price".to_owned()))?;
    let scaled = |factor: &str| {
        mark.checked_mul(dec(factor))
            .map(|p| p.round_dp(1).normalize())
            .ok_or_else(|| t.wrong(format!("mark price {mark} out of range")))
    };
    let take_profit = scaled("1.1")?;
    let stop_loss = scaled("0.9")?;
    let ack = t.send(
        &swap::SponsorOrderRequest::new(
            INSTRUMENT,
            CopyMarginMode::Crossed,
            SponsorSide::OpenLong,
            dec("20"),
            Size::new(dec("5")),
            CopyPricing::Market(CopyMarketStyle::OpponentIoc),
        )
        .take_profit_trigger(TriggerPriceType::Mark)
        .take_profit_price(Price::new(take_profit))
        .stop_loss_trigger(TriggerPriceType::Mark)
        .stop_loss_price(Price::new(stop_loss)),
    )?;
    if !ack.is_success() {
        return Err(t.wrong("sponsor_order answered res 2 (fail)".to_owned()));
    }
    t.line(
        "sponsored",
        format_args!("long 5 contracts at market, 20x; TP {take_profit} / SL {stop_loss} (mark)"),
    )?;
    let copies = t.send(&swap::CopyCurrentRequest::new(CopyCurrentView::Detailed))?;
    let copy = copies
        .list
        .first()
        .ok_or_else(|| t.wrong("no copy position after sponsor_order".to_owned()))?;
    let copy_id = copy.order_id.clone();
    t.line(
        "copy position",
        format_args!(
            "{} open {}  TP {}  SL {}  id {copy_id}",
            copy.instrument_name.as_deref().unwrap_or("-"),
            opt(copy.open_price),
            opt(copy.stop_earn_trigger_price),
            opt(copy.stop_loss_trigger_price)
        ),
    )?;
    let closed = t.send(&swap::CloseCopyOrderRequest::new(copy_id.clone()))?;
    if !closed.is_success() {
        return Err(t.wrong(format!("close_order {copy_id} answered res 2 (fail)")));
    }
    t.line("closed", format_args!("copy position {copy_id}"))?;

    writeln!(
        t.out,
        "\ndone: {} steps in {:.2} s",
        t.number,
        started.elapsed().as_secs_f64()
    )?;
    t.out.flush()?;
    drop(t);
    sim.shutdown();
    Ok(())
}

/// Subscribes to the demo account's `btc_usdt` orders on the simulator's spot socket, places
/// and cancels a limit order over REST, and prints the pushes (bounded to 10 s).
fn watch_order_updates<W: Write>(
    t: &mut Tour<W>,
    sim: &digifinex_sim::SimHandle,
    creds: Credentials,
) -> Result<(), Failure> {
    use digifinex_core::ws::Event;
    let stream = digifinex_ureq::ws::StreamBuilder::new(Family::Spot)
        .url(sim.spot_ws_url())
        .allow_http(true)
        .credentials(creds)
        // The ticker keeps frames coming while we wait for the private ones.
        .subscribe(ws_sub("spot:ticker:btc_usdt")?)
        .subscribe(ws_sub("spot:order:btc_usdt")?)
        .build()
        .map_err(|e| t.failed(&e))?;
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    let mut events = stream.into_iter();
    let mut next = |t: &Tour<W>| -> Result<Event, Failure> {
        if Instant::now() > deadline {
            return Err(t.wrong("no websocket event in 10 s".into()));
        }
        events
            .next()
            .ok_or_else(|| t.wrong("the stream ended".into()))
    };
    loop {
        if let Event::Subscribed { subscriptions } = next(t)? {
            if subscriptions.iter().any(|s| s.channel.is_private()) {
                break;
            }
        }
    }
    t.line("subscribed", "spot:order:btc_usdt (after server.auth)")?;
    // Let the simulator take its first look at the account before the order.
    std::thread::sleep(std::time::Duration::from_millis(250));
    let placed = t.send(&spot::PlaceOrderRequest::new(
        Market::Spot,
        SYMBOL,
        spot::LimitOrder::buy(Amount::new(dec("0.01")), Price::new(dec("1000"))),
    ))?;
    let mut cancel_sent = false;
    loop {
        let Event::SpotOrders { orders } = next(t)? else {
            continue;
        };
        for o in orders.iter().filter(|o| o.id == placed.order_id) {
            t.line(
                "pushed",
                format_args!(
                    "status {}  filled {} of {}",
                    opt_debug(o.status.as_ref()),
                    opt(o.filled),
                    opt(o.amount)
                ),
            )?;
            if o.status.as_ref().is_some_and(|s| !s.is_open()) {
                return Ok(());
            }
        }
        if !cancel_sent {
            t.send(&spot::CancelOrdersRequest::new(
                Market::Spot,
                [placed.order_id.clone()],
            ))?;
            cancel_sent = true;
        }
    }
}

/// A subscription the demo names.
fn ws_sub(text: &str) -> Result<digifinex_core::ws::Subscription, Failure> {
    text.parse()
        .map_err(|e| Failure::Other(format!("demo subscription {text}: {e}")))
}

fn show_balances<W: Write>(t: &mut Tour<W>) -> Result<(), Failure> {
    let assets = t.send(&spot::SpotAssetsRequest)?;
    for a in assets
        .list
        .iter()
        .filter(|a| ["USDT", "BTC"].contains(&a.currency.to_ascii_uppercase().as_str()))
    {
        t.line(
            &a.currency,
            format_args!("free {:>14}  total {:>14}", opt(a.free), opt(a.total)),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_formats_civil_dates() {
        assert_eq!(super::utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(super::utc(1_700_000_000), "2023-11-14 22:13:20 UTC");
        assert_eq!(super::utc(951_782_400), "2000-02-29 00:00:00 UTC");
        // Any server time renders (issue 12: no overflow at the extremes).
        for secs in [i64::MIN, i64::MIN + 1, -1, i64::MAX] {
            assert!(super::utc(secs).ends_with(" UTC"), "{secs}");
        }
    }
}
