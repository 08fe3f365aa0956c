//! What `call` does before sending a write: checks an order placement against the market rules
//! (the library's checked path, `digifinex_core::rules`), rounding it with `--round`, and reads
//! the write's evidence set (a snapshot) so that an unknown outcome is reconciled exactly.
//!
//! DESIGN: the rules come from one public read per call (`GET /v3/trades/symbols` for a spot
//! pair, `GET /swap/v2/public/instruments` for swap instruments), only for order placements and
//! only without `--unchecked`. A pair the list does not hold is refused as "not listed" with
//! the listed pair it most likely meant: the venue's own answer for it (20019, "order does not
//! exist") misleads. A market sell's value is not checked (its price is unknown before it
//! fills); every other rule the list states is.

use clap::ValueEnum;
use digifinex_core::reconcile::{Prior, Write};
use digifinex_core::rules::{self, Checks, Markets, Rounding, SpotRules, SwapRules};
use digifinex_core::{spot, swap, Error, Family};
use digifinex_ureq::Client;

use crate::Failure;

/// `--round`: how a placement off the grid is rounded instead of refused.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub(crate) enum Round {
    /// A buy's price down to the tick, a sell's up (never a worse price); amounts truncated.
    Passive,
    /// The nearest tick (a tie away from the touch); amounts truncated.
    Nearest,
}

impl Round {
    fn mode(self) -> Rounding {
        match self {
            Round::Passive => Rounding::Passive,
            Round::Nearest => Rounding::Nearest,
        }
    }
}

/// The advice after a rule refusal, in this tool's terms.
const ROUND_HINT: &str =
    "pass --round passive or --round nearest to round it, or --unchecked to send it as given";

/// The message of a rule refusal (exit 2): the field, the rule, the nearest valid values and
/// the venue's code, then what to do.
pub(crate) fn rule_message(e: &dyn std::fmt::Display) -> String {
    format!("refused before sending: {e}; {ROUND_HINT}")
}

/// Checks a placement (spot order or batch, swap order or batch) against its market's rules,
/// rounding it per `round`; other writes pass unchanged. Returns the write to send.
pub(crate) fn check(client: &Client, write: Write, round: Option<Round>) -> Result<Write, Failure> {
    let checks = match round {
        Some(r) => Checks::rounding(r.mode()),
        None => Checks::strict(),
    };
    let (spot, swap) = match rules::placement_markets(&write) {
        Markets::Spot(pair) => (Some(spot_rules(client, &pair)?), Vec::new()),
        Markets::Swap(ids) => (None, swap_rules(client, &ids)?),
        _ => return Ok(write),
    };
    rules::check_placement(write, spot.as_ref(), &swap, &checks)
        .map_err(|r| Failure::Usage(rule_message(&r)))
}

/// The rules of spot `pair` from `GET /v3/trades/symbols`; a pair it does not list is "not
/// listed" (exit 2) with the pair it most likely meant.
fn spot_rules(client: &Client, pair: &str) -> Result<SpotRules, Failure> {
    let list = client
        .send(&spot::TradesSymbolsRequest::new())
        .map_err(|e| rules_unread("GET /v3/trades/symbols", e))?;
    match list
        .symbol_list
        .iter()
        .find(|s| s.symbol.as_str().eq_ignore_ascii_case(pair))
    {
        Some(info) => Ok(SpotRules::from_symbol(info)),
        None => Err(Failure::Usage(not_listed(rules::unlisted_pair_among(
            pair,
            list.symbol_list.iter().map(|s| s.symbol.as_str()),
        )))),
    }
}

/// The rules of swap `instruments` from `GET /swap/v2/public/instruments`, in order; one it
/// does not list is "not listed" (exit 2) with the instrument it most likely meant.
fn swap_rules(client: &Client, instruments: &[String]) -> Result<Vec<SwapRules>, Failure> {
    let list = client
        .send(&swap::InstrumentsRequest::new())
        .map_err(|e| rules_unread("GET /swap/v2/public/instruments", e))?;
    instruments
        .iter()
        .map(|id| {
            match list
                .iter()
                .find(|i| i.instrument_id.eq_ignore_ascii_case(id))
            {
                Some(i) => Ok(SwapRules::from_instrument(i)),
                None => Err(Failure::Usage(not_listed(
                    rules::unlisted_instrument_among(
                        id,
                        list.iter().map(|i| i.instrument_id.as_str()),
                    ),
                ))),
            }
        })
        .collect()
}

fn not_listed(e: Error) -> String {
    format!("not listed: {e}")
}

fn rules_unread(what: &str, e: Error) -> Failure {
    Failure::Other(format!(
        "the market rules could not be read ({what}: {e}); nothing was sent; try again, or pass \
         --unchecked to send the order without checking it"
    ))
}

/// Reads the write's evidence set before sending it (`Client::snapshot`); `None` for a write
/// whose verdict does not depend on older records (cancels, settings).
pub(crate) fn snapshot(client: &Client, write: &Write) -> Result<Option<Prior>, Failure> {
    let planned = digifinex_core::reconcile::Snapshot::new(
        write,
        client.session().now(),
        &digifinex_core::reconcile::Options::new(),
    )
    .planned();
    if planned == 0 {
        return Ok(None);
    }
    // DESIGN: the swap venue's timestamp tolerance is not documented, so nothing bounds the
    // clock error a reconciliation relies on; one public read measures it first. (Spot bounds
    // it itself: a request more than 1 s ahead or 5 s behind is refused.) A spot snapshot's
    // history window is computed from the session's time, so a clock not yet measured is
    // measured first too (a clock 10 s ahead would start the window in the server's future,
    // which spot refuses with 20022).
    if write.meta().family == Family::Swap || !client.session().clock_measured() {
        client.sync_time(write.meta().family).map_err(|e| {
            Failure::Other(format!(
                "the clock sync before the write failed ({e}); nothing was sent; try again, or \
                 pass --no-snapshot"
            ))
        })?;
    }
    client.snapshot(write).map(Some).map_err(|e| {
        Failure::Other(format!(
            "the snapshot before the write failed ({e}); nothing was sent; try again, or pass \
             --no-snapshot to send it without one (an unknown outcome is then often ambiguous)"
        ))
    })
}
