//! Market rules loaded on demand, and the checked placement path.

use digifinex_core::rules::{self, Checks, RulesLookup, Sent, SpotRules, SwapRules};
use digifinex_core::{spot, swap, Error};

use crate::Client;

impl Client {
    /// The rules of spot `pair` (any case): from the session's cache, loaded with
    /// `GET /v3/trades/symbols` when the cache is empty or older than the refresh interval
    /// (`SessionBuilder::rules_refresh`, 10 minutes by default).
    ///
    /// A pair the fresh list does not have is a validation error on `symbol`.
    pub fn spot_rules(&self, pair: &str) -> Result<SpotRules, Error> {
        let session = self.session();
        if let RulesLookup::Load(req) = session.spot_rules(pair) {
            session.load_spot_rules(&self.send(&req)?);
        }
        match session.spot_rules(pair) {
            RulesLookup::Ready(r) => Ok(r),
            _ => Err(rules::unlisted_pair(pair)),
        }
    }

    /// The rules of swap `instrument_id` (any case), loaded with
    /// `GET /swap/v2/public/instruments` like [`Client::spot_rules`].
    pub fn swap_rules(&self, instrument_id: &str) -> Result<SwapRules, Error> {
        let session = self.session();
        if let RulesLookup::Load(req) = session.swap_rules(instrument_id) {
            session.load_swap_rules(&self.send(&req)?);
        }
        match session.swap_rules(instrument_id) {
            RulesLookup::Ready(r) => Ok(r),
            _ => Err(rules::unlisted_instrument(instrument_id)),
        }
    }

    /// `POST /v3/{market}/order/new`, checked first against the pair's rules (rounded when
    /// `checks.round` is set): an order the venue would refuse for precision, minimums or
    /// permissions is refused here with [`Error::Rule`] (the venue's code, the field and the
    /// nearest valid values) and nothing is sent.
    pub fn place_spot_checked(
        &self,
        req: &spot::PlaceOrderRequest,
        checks: &Checks,
    ) -> Result<Sent<spot::PlaceOrderRequest, spot::PlacedOrder>, Error> {
        let rules = self.spot_rules(req.symbol())?;
        let request = req.checked(&rules, checks)?;
        let output = self.send(&request)?;
        Ok(Sent::new(request, output))
    }

    /// `POST /swap/v2/trade/order_place`, checked first against the instrument's rules like
    /// [`Client::place_spot_checked`] (the open-value cap when `checks.exposure` is given).
    pub fn place_swap_checked(
        &self,
        req: &swap::PlaceOrderRequest,
        checks: &Checks,
    ) -> Result<Sent<swap::PlaceOrderRequest, swap::PlacedOrder>, Error> {
        let rules = self.swap_rules(req.order().instrument_id())?;
        let request = req.checked(&rules, checks)?;
        let output = self.send(&request)?;
        Ok(Sent::new(request, output))
    }
}
