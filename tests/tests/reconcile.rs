//! Reconciliation of unknown outcomes against the simulator, through both clients: for each
//! write, sent after a snapshot of its evidence set (`send_write` with
//! `SnapshotPolicy::BeforeSend`), the request dropped before it is applied (not applied),
//! dropped after it is applied (applied, with the right id), answered too late, two identical
//! orders (exact with the snapshot, ambiguous without it, never wrong), an order filled at once
//! (found in the history) and a cancel of an order that was already filled.

use std::time::Duration;

use digifinex_core::policy::RetryPolicy;
use digifinex_core::reconcile::{
    Options, Outcome, Resolution, SnapshotPolicy, Verdict, WriteRequest,
};
use digifinex_core::spot::{
    BatchPlaceOrdersRequest, CancelOrdersRequest, CancelWithdrawRequest, ClosePositionRequest,
    LimitOrder, Market, OrderBookRequest, PlaceOrderRequest, TransferAccount, TransferRequest,
    WithdrawRequest,
};
use digifinex_core::{swap, Amount, Credentials, Decimal, Endpoint, Error, ErrorKind, Price, Size};
use digifinex_sim::{AccountId, FaultKind, FaultRule, Sim, SimConfig, SimHandle, WhitelistEntry};

/// What a scenario needs from a client.
trait Driver {
    fn send<E>(&self, e: &E) -> Result<E::Output, Error>
    where
        E: Endpoint + Sync,
        E::Output: Send;
    fn send_write<E>(&self, e: &E, policy: SnapshotPolicy) -> Result<E::Output, Error>
    where
        E: WriteRequest + Sync,
        E::Output: Send;
    fn reconcile(&self, e: &Error, options: Options) -> Result<Outcome, Error>;
    /// Whether the client remembers `id` as placed or seen.
    fn known(&self, id: &str) -> bool;
}

struct Ureq(digifinex_ureq::Client);

impl Driver for Ureq {
    fn send<E>(&self, e: &E) -> Result<E::Output, Error>
    where
        E: Endpoint + Sync,
        E::Output: Send,
    {
        self.0.send(e)
    }
    fn send_write<E>(&self, e: &E, policy: SnapshotPolicy) -> Result<E::Output, Error>
    where
        E: WriteRequest + Sync,
        E::Output: Send,
    {
        self.0.send_write(e, policy)
    }
    fn reconcile(&self, e: &Error, options: Options) -> Result<Outcome, Error> {
        self.0.reconcile_with(e, options)
    }
    fn known(&self, id: &str) -> bool {
        self.0.known_ids().known_before(u64::MAX).contains(id)
    }
}

struct Hyper(digifinex_hyper::Client, tokio::runtime::Runtime);

impl Driver for Hyper {
    fn send<E>(&self, e: &E) -> Result<E::Output, Error>
    where
        E: Endpoint + Sync,
        E::Output: Send,
    {
        self.1.block_on(self.0.send(e))
    }
    fn send_write<E>(&self, e: &E, policy: SnapshotPolicy) -> Result<E::Output, Error>
    where
        E: WriteRequest + Sync,
        E::Output: Send,
    {
        self.1.block_on(self.0.send_write(e, policy))
    }
    fn reconcile(&self, e: &Error, options: Options) -> Result<Outcome, Error> {
        self.1.block_on(self.0.reconcile_with(e, options))
    }
    fn known(&self, id: &str) -> bool {
        self.0.known_ids().known_before(u64::MAX).contains(id)
    }
}

struct World {
    sim: SimHandle,
    account: AccountId,
}

fn world() -> (World, Credentials) {
    let sim = Sim::start(SimConfig::default()).unwrap();
    let demo = sim.control().demo_account();
    let creds = Credentials::new(demo.keys.key.clone(), demo.keys.secret.clone());
    (
        World {
            sim,
            account: demo.account,
        },
        creds,
    )
}

fn ureq(w: &World, creds: Credentials, timeout: Duration) -> Ureq {
    Ureq(
        digifinex_ureq::Client::builder()
            .spot_base_url(w.sim.spot_base_url())
            .swap_base_url(w.sim.swap_base_url())
            .allow_http(true)
            .credentials(creds)
            .timeout(timeout)
            .retry_policy(RetryPolicy::never())
            .build()
            .unwrap(),
    )
}

fn hyper(w: &World, creds: Credentials, timeout: Duration) -> Hyper {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = rt.block_on(async {
        digifinex_hyper::Client::builder()
            .spot_base_url(w.sim.spot_base_url())
            .swap_base_url(w.sim.swap_base_url())
            .allow_http(true)
            .credentials(creds)
            .timeout(timeout)
            .retry_policy(RetryPolicy::never())
            .build()
            .unwrap()
    });
    Hyper(client, rt)
}

// ---------------------------------------------------------------------------------------------
// Helpers

const BTC_PERP: &str = "BTCUSDTPERP";

fn dec(text: &str) -> Decimal {
    text.parse().unwrap()
}

/// Sends `req` after a snapshot, with `fault` on its route for that one request; returns the
/// unknown outcome.
fn unknown<D: Driver, E>(w: &World, d: &D, req: &E, fault: FaultKind) -> Error
where
    E: WriteRequest + Sync,
    E::Output: Send,
{
    unknown_with(w, d, req, fault, SnapshotPolicy::BeforeSend)
}

/// [`unknown`] with a snapshot policy.
fn unknown_with<D: Driver, E>(
    w: &World,
    d: &D,
    req: &E,
    fault: FaultKind,
    policy: SnapshotPolicy,
) -> Error
where
    E: WriteRequest + Sync,
    E::Output: Send,
{
    let path = if E::META.family == digifinex_core::Family::Spot {
        let mut p = String::from("/v3");
        req.write_path(&mut p);
        p
    } else {
        E::META.path.to_owned()
    };
    w.sim
        .control()
        .add_fault(FaultRule::route("POST", &path, fault).times(1));
    let e = match d.send_write(req, policy) {
        Err(e) => e,
        Ok(_) => panic!("{} succeeded despite the fault", E::META.name),
    };
    assert_eq!(e.kind(), ErrorKind::OutcomeUnknown, "{e}");
    e
}

fn before<D: Driver, E>(w: &World, d: &D, req: &E) -> Outcome
where
    E: WriteRequest + Sync,
    E::Output: Send,
{
    d.reconcile(
        &unknown(w, d, req, FaultKind::DropBeforeApply),
        Options::new(),
    )
    .unwrap()
}

fn after<D: Driver, E>(w: &World, d: &D, req: &E) -> Outcome
where
    E: WriteRequest + Sync,
    E::Output: Send,
{
    let o = d
        .reconcile(
            &unknown(w, d, req, FaultKind::DropAfterApply),
            Options::new(),
        )
        .unwrap();
    // The window starts at the build time read back from the signed request.
    assert!(o.window.start.is_some(), "{o:?}");
    o
}

fn not_applied(o: &Outcome, why: &str) {
    assert_eq!(o.resolution(), Resolution::NotApplied, "{o:?}");
    for v in &o.verdicts {
        match v {
            Verdict::NotApplied { why: w } => assert!(w.contains(why), "{w}"),
            other => panic!("{other:?}"),
        }
    }
}

/// The ids of an outcome whose every element is applied.
fn applied(o: &Outcome) -> Vec<Option<String>> {
    assert_eq!(o.resolution(), Resolution::Applied, "{o:?}");
    o.verdicts
        .iter()
        .map(|v| match v {
            Verdict::Applied { id, .. } => id.clone(),
            other => panic!("{other:?}"),
        })
        .collect()
}

fn applied_id(o: &Outcome) -> String {
    let ids = applied(o);
    assert_eq!(ids.len(), 1, "{o:?}");
    ids[0].clone().expect("an id")
}

fn resting_buy(price: &str) -> PlaceOrderRequest {
    PlaceOrderRequest::new(
        Market::Spot,
        "btc_usdt",
        LimitOrder::buy(Amount::new(dec("0.01")), Price::new(dec(price))),
    )
}

/// A buy at the best ask, small enough to fill at once.
fn filling_buy<D: Driver>(d: &D, market: Market) -> PlaceOrderRequest {
    let book = d.send(&OrderBookRequest::new("btc_usdt").limit(5)).unwrap();
    let best = book
        .asks
        .iter()
        .min_by(|a, b| a.price.cmp(&b.price))
        .unwrap();
    PlaceOrderRequest::new(
        market,
        "btc_usdt",
        LimitOrder::buy(
            Amount::new(dec("0.01").min(best.amount)),
            Price::new(best.price),
        ),
    )
}

fn swap_top<D: Driver>(d: &D) -> (Decimal, Decimal) {
    let depth = d.send(&swap::DepthRequest::new(BTC_PERP)).unwrap();
    let ask = depth.asks.iter().map(|l| l.price).min().unwrap();
    let bid = depth.bids.iter().map(|l| l.price).max().unwrap();
    (ask, bid)
}

fn swap_limit(side: swap::OrderSide, size: i64, price: Decimal) -> swap::OrderSpec {
    swap::OrderSpec::limit(
        BTC_PERP,
        side,
        Size::new(Decimal::from(size)),
        Price::new(price),
    )
}

fn last_spot_order(w: &World) -> String {
    let orders = w.sim.control().orders(w.account);
    orders
        .iter()
        .max_by_key(|o| o.created_ms)
        .unwrap()
        .order_id
        .clone()
}

fn swap_order_ids(w: &World) -> Vec<String> {
    w.sim
        .control()
        .swap_orders(w.account)
        .into_iter()
        .map(|o| o.order_id)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Spot

fn spot_order_dropped_before_and_after_apply<D: Driver>(w: &World, d: &D) {
    let o = before(w, d, &resting_buy("10000"));
    not_applied(&o, "no order of this pair");
    assert_eq!(w.sim.control().order_count(w.account), 0);
    let o = after(w, d, &resting_buy("10000"));
    assert_eq!(applied_id(&o), last_spot_order(w));
    assert_eq!(w.sim.control().order_count(w.account), 1);
}

fn spot_order_answered_too_late_is_applied<D: Driver>(w: &World, d: &D) {
    let e = unknown(
        w,
        d,
        &resting_buy("10000"),
        FaultKind::LateAnswer { delay_ms: 1_500 },
    );
    assert!(
        matches!(&e, Error::OutcomeUnknown { cause, .. } if cause.kind() == ErrorKind::Network),
        "{e:?}"
    );
    let o = d.reconcile(&e, Options::new()).unwrap();
    assert_eq!(applied_id(&o), last_spot_order(w));
}

/// Issue 25's case: an identical order placed a moment before by another program (unknown to
/// this client). Without a snapshot the verdict is ambiguous, never applied (after the drop
/// before apply) and never "not applied" naming nothing (after the drop after apply); with a
/// snapshot it is exact.
fn spot_identical_orders_exact_with_a_snapshot_never_wrong_without<D: Driver, O: Driver>(
    w: &World,
    d: &D,
    other: &O,
) {
    let first = other.send(&resting_buy("10000")).unwrap().order_id;
    let skip = SnapshotPolicy::Skip;
    let e = unknown_with(
        w,
        d,
        &resting_buy("10000"),
        FaultKind::DropBeforeApply,
        skip,
    );
    let o = d.reconcile(&e, Options::new()).unwrap();
    match &o.verdicts[0] {
        Verdict::Ambiguous { candidates, why } => {
            assert_eq!(candidates, std::slice::from_ref(&first));
            assert!(
                why.contains("created before the request can have been built"),
                "{why}"
            );
        }
        other => panic!("{other:?}"),
    }
    let e = unknown_with(w, d, &resting_buy("10000"), FaultKind::DropAfterApply, skip);
    let o = d.reconcile(&e, Options::new()).unwrap();
    assert_eq!(o.resolution(), Resolution::Ambiguous, "{o:?}");
    let second = last_spot_order(w);
    // With a snapshot: exact, both ways.
    let o = before(w, d, &resting_buy("10000"));
    not_applied(&o, "no order of this pair");
    let o = after(w, d, &resting_buy("10000"));
    let third = applied_id(&o);
    assert_eq!(third, last_spot_order(w));
    assert!(third != first && third != second);
    // This client remembers what it placed and saw: the ids of the orders before.
    assert!(d.known(&second) && d.known(&third));
}

fn spot_order_filled_at_once_is_found_in_the_history<D: Driver>(w: &World, d: &D) {
    let o = after(w, d, &filling_buy(d, Market::Spot));
    let id = last_spot_order(w);
    assert_eq!(applied_id(&o), id);
    assert_eq!(w.sim.control().open_order_count(w.account), 0);
    assert!(format!("{:?}", o.verdicts[0]).contains("filled"), "{o:?}");
}

fn spot_cancel_dropped_and_cancel_of_a_filled_order<D: Driver>(w: &World, d: &D) {
    let id = d.send(&resting_buy("10000")).unwrap().order_id;
    let cancel = CancelOrdersRequest::new(Market::Spot, [id.clone()]);
    not_applied(&before(w, d, &cancel), "still open");
    assert_eq!(applied_id(&after(w, d, &cancel)), id);
    assert_eq!(w.sim.control().open_order_count(w.account), 0);
    // The order filled before the cancel arrived: nothing to cancel (safe).
    let filled = d.send(&filling_buy(d, Market::Spot)).unwrap().order_id;
    let o = after(
        w,
        d,
        &CancelOrdersRequest::new(Market::Spot, [filled.clone()]),
    );
    not_applied(&o, &format!("already filled: nothing to cancel ({filled})"));
}

fn spot_batch_dropped<D: Driver>(w: &World, d: &D) {
    let batch = BatchPlaceOrdersRequest::new(
        Market::Spot,
        "btc_usdt",
        ["10000", "10001.5"].map(|p| LimitOrder::buy(Amount::new(dec("0.01")), Price::new(dec(p)))),
    );
    let o = before(w, d, &batch);
    assert_eq!(o.verdicts.len(), 2);
    not_applied(&o, "no order");
    let o = after(w, d, &batch);
    let mut sim_ids: Vec<_> = w.sim.control().orders(w.account);
    sim_ids.sort_by_key(|o| o.price);
    let want: Vec<_> = sim_ids.into_iter().map(|o| Some(o.order_id)).collect();
    assert_eq!(applied(&o), want);
}

fn spot_transfer_dropped<D: Driver>(w: &World, d: &D) {
    let t = TransferRequest::new(
        "usdt",
        Amount::new(dec("1000")),
        TransferAccount::Spot,
        TransferAccount::Margin,
    );
    not_applied(&before(w, d, &t), "no change of -1000 usdt");
    let o = after(w, d, &t);
    assert_eq!(applied(&o), [None]);
    assert!(format!("{o:?}").contains("-1000"), "{o:?}");
}

fn margin_close_dropped<D: Driver>(w: &World, d: &D) {
    d.send(&TransferRequest::new(
        "usdt",
        Amount::new(dec("1000")),
        TransferAccount::Spot,
        TransferAccount::Margin,
    ))
    .unwrap();
    d.send(&filling_buy(d, Market::Margin)).unwrap();
    let close = ClosePositionRequest::new("btc_usdt");
    not_applied(&before(w, d, &close), "position is still open");
    let o = after(w, d, &close);
    let closing = last_spot_order(w);
    assert_eq!(applied_id(&o), closing);
    // Closed: another close, knowing that closing order, finds nothing left to close.
    let e = unknown(w, d, &close, FaultKind::DropBeforeApply);
    let o = d
        .reconcile(&e, Options::new().known_ids([closing]))
        .unwrap();
    not_applied(&o, "nothing is left to close");
}

fn withdrawal_and_its_cancel_dropped<D: Driver>(w: &World, d: &D) {
    let address = "0x00000000000000000000000000000000000c0ffee";
    w.sim
        .control()
        .whitelist_address(
            w.account,
            WhitelistEntry {
                currency: "ETH".to_owned(),
                chain: String::new(),
                address: address.to_owned(),
                memo: String::new(),
            },
        )
        .unwrap();
    let req = WithdrawRequest::new("eth", address, Amount::new(dec("2")));
    not_applied(&before(w, d, &req), "no withdrawal of 2 eth");
    let o = after(w, d, &req);
    let id = w.sim.control().withdrawals(w.account)[0].id.to_string();
    assert_eq!(applied_id(&o), id);

    let cancel = CancelWithdrawRequest::new(id.clone());
    not_applied(&before(w, d, &cancel), "still pending");
    assert_eq!(applied_id(&after(w, d, &cancel)), id);
    assert_eq!(w.sim.control().withdrawals(w.account)[0].state, 4);
}

// ---------------------------------------------------------------------------------------------
// Swap

fn swap_order_dropped_before_after_and_late<D: Driver>(w: &World, d: &D) {
    let (_, bid) = swap_top(d);
    let req = swap::PlaceOrderRequest::new(swap_limit(
        swap::OrderSide::OpenLong,
        1,
        bid - Decimal::from(300),
    ));
    not_applied(&before(w, d, &req), "no order of this instrument");
    assert!(swap_order_ids(w).is_empty());
    let o = after(w, d, &req);
    assert_eq!(vec![applied_id(&o)], swap_order_ids(w));
    // Answered too late: applied, the new one (the first is in the snapshot).
    let first = swap_order_ids(w);
    let e = unknown(w, d, &req, FaultKind::LateAnswer { delay_ms: 1_500 });
    let o = d.reconcile(&e, Options::new()).unwrap();
    let id = applied_id(&o);
    assert!(
        !first.contains(&id) && swap_order_ids(w).contains(&id),
        "{id}"
    );
    // Without a snapshot: its record is within the clock uncertainty of the build, so it may
    // be an older identical order's: ambiguous.
    let e = unknown_with(w, d, &req, FaultKind::DropAfterApply, SnapshotPolicy::Skip);
    let o = d.reconcile(&e, Options::new()).unwrap();
    assert_eq!(o.resolution(), Resolution::Ambiguous, "{o:?}");
}

fn swap_order_filled_at_once_and_batch<D: Driver>(w: &World, d: &D) {
    let (ask, bid) = swap_top(d);
    let req = swap::PlaceOrderRequest::new(swap_limit(swap::OrderSide::OpenLong, 1, ask));
    let o = after(w, d, &req);
    assert_eq!(vec![applied_id(&o)], swap_order_ids(w));
    assert!(format!("{o:?}").contains("filled"), "{o:?}");

    let batch = swap::BatchPlaceOrdersRequest::new([
        swap_limit(swap::OrderSide::OpenLong, 1, bid - Decimal::from(300)),
        swap_limit(swap::OrderSide::OpenLong, 2, bid - Decimal::from(400)),
    ]);
    let o = before(w, d, &batch);
    not_applied(&o, "no order");
    let known = swap_order_ids(w);
    let o = d
        .reconcile(
            &unknown(w, d, &batch, FaultKind::DropAfterApply),
            Options::new().known_ids(known.clone()),
        )
        .unwrap();
    let ids: Vec<String> = applied(&o).into_iter().map(Option::unwrap).collect();
    let views = w.sim.control().swap_orders(w.account);
    for (id, size) in ids.iter().zip([1, 2]) {
        let v = views.iter().find(|v| &v.order_id == id).unwrap();
        assert_eq!(v.size, Decimal::from(size));
    }
}

fn swap_cancels_dropped_and_cancel_of_a_filled_order<D: Driver>(w: &World, d: &D) {
    let (ask, bid) = swap_top(d);
    let a = d
        .send(&swap::PlaceOrderRequest::new(swap_limit(
            swap::OrderSide::OpenLong,
            1,
            bid - Decimal::from(300),
        )))
        .unwrap()
        .order_id;
    let cancel = swap::CancelOrderRequest::new(BTC_PERP, a.clone());
    not_applied(&before(w, d, &cancel), "still open");
    assert_eq!(applied_id(&after(w, d, &cancel)), a);

    let ids: Vec<String> = [300, 400]
        .map(|off| {
            d.send(&swap::PlaceOrderRequest::new(swap_limit(
                swap::OrderSide::OpenLong,
                1,
                bid - Decimal::from(off),
            )))
            .unwrap()
            .order_id
        })
        .to_vec();
    let batch = swap::BatchCancelOrdersRequest::new(ids.iter().map(|id| (BTC_PERP, id.clone())));
    not_applied(&before(w, d, &batch), "still open");
    let got: Vec<String> = applied(&after(w, d, &batch))
        .into_iter()
        .map(Option::unwrap)
        .collect();
    assert_eq!(got, ids);

    let filled = d
        .send(&swap::PlaceOrderRequest::new(swap_limit(
            swap::OrderSide::OpenLong,
            1,
            ask,
        )))
        .unwrap()
        .order_id;
    let o = after(
        w,
        d,
        &swap::CancelOrderRequest::new(BTC_PERP, filled.clone()),
    );
    not_applied(&o, &format!("already filled: nothing to cancel ({filled})"));
}

fn swap_transfer_dropped<D: Driver>(w: &World, d: &D) {
    let t = swap::TransferRequest::new(
        swap::TransferType::SpotToSwap,
        "USDT",
        Amount::new(dec("250")),
    );
    not_applied(&before(w, d, &t), "no transfer of 250 USDT");
    let o = after(w, d, &t);
    let records = d.send(&swap::TransferRecordRequest::new()).unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(applied_id(&o), records[0].transfer_id);
}

fn swap_settings_dropped<D: Driver>(w: &World, d: &D) {
    // Margin mode: no position or order shows it, so it reads as not applied; resending is
    // harmless.
    let mode = swap::PositionModeRequest::new(BTC_PERP, swap::MarginMode::Isolated);
    let o = after(w, d, &mode);
    not_applied(&o, "cannot be read");
    assert!(o.resend_is_harmless);
    assert!(o.what_to_do().contains("harmless"), "{}", o.what_to_do());
    d.send(&mode).unwrap();

    // An isolated long position: leverage and position margin are readable.
    d.send(&swap::PlaceOrderRequest::new(swap::OrderSpec::market(
        BTC_PERP,
        swap::OrderSide::OpenLong,
        Size::new(Decimal::from(2)),
        swap::MarketStyle::IocOpponent,
    )))
    .unwrap();
    let position = || {
        d.send(&swap::PositionsRequest::new().instrument_id(BTC_PERP))
            .unwrap()
            .into_iter()
            .find(|p| p.side == Some(swap::PositionSide::Long))
            .unwrap()
    };
    let old = position().leverage.unwrap();
    let target = if old == Decimal::from(5) { 4 } else { 5 };
    let lev = swap::LeverageRequest::new(BTC_PERP, Decimal::from(target));
    not_applied(
        &before(w, d, &lev),
        &format!("shows leverage {}", old.normalize()),
    );
    let o = after(w, d, &lev);
    assert_eq!(applied(&o), [None]);
    assert_eq!(position().leverage, Some(Decimal::from(target)));

    let margin_before = position().posi_balance.unwrap();
    let add = swap::PositionMarginRequest::new(
        BTC_PERP,
        swap::PositionSide::Long,
        swap::MarginAdjustment::Add,
        Amount::new(dec("5")),
    );
    let opts = Options::new().position_margin_before(margin_before);
    let skip = SnapshotPolicy::Skip;
    let e = unknown_with(w, d, &add, FaultKind::DropBeforeApply, skip);
    not_applied(&d.reconcile(&e, opts.clone()).unwrap(), "still");
    // Without the margin before, the venue's records cannot tell.
    assert_eq!(
        d.reconcile(&e, Options::new()).unwrap().resolution(),
        Resolution::Ambiguous
    );
    let e = unknown_with(w, d, &add, FaultKind::DropAfterApply, skip);
    assert_eq!(applied(&d.reconcile(&e, opts).unwrap()), [None]);
    assert_eq!(position().posi_balance, Some(margin_before + dec("5")));
    // The snapshot reads the margin before by itself.
    let e = unknown(w, d, &add, FaultKind::DropAfterApply);
    assert_eq!(applied(&d.reconcile(&e, Options::new()).unwrap()), [None]);
    assert_eq!(position().posi_balance, Some(margin_before + dec("10")));
}

// ---------------------------------------------------------------------------------------------
// Copy trading

fn sponsor(pricing: swap::CopyPricing) -> swap::SponsorOrderRequest {
    swap::SponsorOrderRequest::new(
        BTC_PERP,
        swap::CopyMarginMode::Crossed,
        swap::SponsorSide::OpenLong,
        Decimal::from(10),
        Size::new(Decimal::from(3)),
        pricing,
    )
}

fn market_sponsor() -> swap::SponsorOrderRequest {
    sponsor(swap::CopyPricing::Market(
        swap::CopyMarketStyle::OpponentIoc,
    ))
}

fn copy_sponsor_close_and_cancel_dropped<D: Driver>(w: &World, d: &D) {
    w.sim
        .control()
        .set_mark_price(BTC_PERP, Some(dec("30000")))
        .unwrap();
    not_applied(&before(w, d, &market_sponsor()), "no sponsored order");
    let o = after(w, d, &market_sponsor());
    let id = applied_id(&o);
    assert_eq!(swap_order_ids(w), std::slice::from_ref(&id));

    let close = swap::CloseCopyOrderRequest::new(id.clone());
    not_applied(&before(w, d, &close), "still open");
    assert_eq!(applied_id(&after(w, d, &close)), id);

    // A resting sponsored order (a limit 5 % under the mark) cancelled, and a filled one.
    let (_, bid) = swap_top(d);
    d.send(&sponsor(swap::CopyPricing::Limit(Price::new(
        (bid * dec("0.95")).round_dp(1),
    ))))
    .unwrap();
    let resting = w
        .sim
        .control()
        .swap_orders(w.account)
        .into_iter()
        .find(|o| o.copy && o.state == 0)
        .unwrap()
        .order_id;
    let cancel = swap::CancelCopyOrderRequest::new(resting.clone());
    not_applied(&before(w, d, &cancel), "still open");
    assert_eq!(applied_id(&after(w, d, &cancel)), resting);

    d.send(&market_sponsor()).unwrap();
    let filled = w
        .sim
        .control()
        .swap_orders(w.account)
        .into_iter()
        .filter(|o| o.copy && o.state == 2 && o.order_id != id)
        .max_by_key(|o| o.created_ms)
        .unwrap()
        .order_id;
    let o = after(w, d, &swap::CancelCopyOrderRequest::new(filled.clone()));
    not_applied(&o, "already filled");
}

fn copy_algos_dropped<D: Driver>(w: &World, d: &D) {
    w.sim
        .control()
        .set_mark_price(BTC_PERP, Some(dec("30000")))
        .unwrap();
    d.send(&market_sponsor()).unwrap();
    let id = swap_order_ids(w)[0].clone();
    let add = swap::AddAlgoRequest::new()
        .order_id(id.clone())
        .profit_trigger_type(swap::TriggerPriceType::Mark)
        .profit_trigger_price(Price::new(dec("40000")));
    not_applied(
        &before(w, d, &add),
        "does not show the take-profit at 40000",
    );
    let o = after(w, d, &add);
    let plans = d.send(&swap::PlanTaskRequest::new(1, 10)).unwrap();
    assert_eq!(plans.list.len(), 1);
    assert_eq!(applied_id(&o), plans.list[0].order_id);

    let cancel = swap::CancelAlgoRequest::new()
        .order_id(id)
        .cancel_take_profit(true);
    not_applied(
        &before(w, d, &cancel),
        "still shows the take-profit at 40000",
    );
    let o = after(w, d, &cancel);
    assert_eq!(applied(&o), [None]);
    assert!(o.resend_is_harmless);
}

// ---------------------------------------------------------------------------------------------

/// Emits one test per client for each scenario; `late` scenarios use a client timeout shorter
/// than the late answer.
macro_rules! scenarios {
    ($($name:ident $(($timeout_ms:expr))?;)*) => {
        mod ureq_client {
            use super::*;
            $(
                #[test]
                fn $name() {
                    #[allow(unused_mut, unused_assignments)]
                    let mut timeout = Duration::from_secs(5);
                    $( timeout = Duration::from_millis($timeout_ms); )?
                    let (w, creds) = world();
                    let d = ureq(&w, creds, timeout);
                    super::$name(&w, &d);
                }
            )*
        }
        mod hyper_client {
            use super::*;
            $(
                #[test]
                fn $name() {
                    #[allow(unused_mut, unused_assignments)]
                    let mut timeout = Duration::from_secs(5);
                    $( timeout = Duration::from_millis($timeout_ms); )?
                    let (w, creds) = world();
                    let d = hyper(&w, creds, timeout);
                    super::$name(&w, &d);
                }
            )*
        }
    };
}

scenarios! {
    spot_order_dropped_before_and_after_apply;
    spot_order_answered_too_late_is_applied (500);
    spot_order_filled_at_once_is_found_in_the_history;
    spot_cancel_dropped_and_cancel_of_a_filled_order;
    spot_batch_dropped;
    spot_transfer_dropped;
    margin_close_dropped;
    withdrawal_and_its_cancel_dropped;
    swap_order_dropped_before_after_and_late (500);
    swap_order_filled_at_once_and_batch;
    swap_cancels_dropped_and_cancel_of_a_filled_order;
    swap_transfer_dropped;
    swap_settings_dropped;
    copy_sponsor_close_and_cancel_dropped;
    copy_algos_dropped;
}

/// Two clients of one account: the other one places the identical order first.
#[test]
fn ureq_spot_identical_orders_exact_with_a_snapshot_never_wrong_without() {
    let (w, creds) = world();
    let d = ureq(&w, creds.clone(), Duration::from_secs(5));
    let other = ureq(&w, creds, Duration::from_secs(5));
    spot_identical_orders_exact_with_a_snapshot_never_wrong_without(&w, &d, &other);
}

/// The same through the async client.
#[test]
fn hyper_spot_identical_orders_exact_with_a_snapshot_never_wrong_without() {
    let (w, creds) = world();
    let d = hyper(&w, creds.clone(), Duration::from_secs(5));
    let other = ureq(&w, creds, Duration::from_secs(5));
    spot_identical_orders_exact_with_a_snapshot_never_wrong_without(&w, &d, &other);
}
