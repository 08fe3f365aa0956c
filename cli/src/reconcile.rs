//! What `call` does after an unknown outcome: it reconciles at once (the reads of
//! `digifinex_core::reconcile`, through the same client), prints the verdict as JSON on stdout
//! and what to do on stderr, and exits 1 like any transport error (the CLI contract's exit
//! codes); the verdict's `resolution` says which it is.
//!
//! DESIGN: distinct exit codes per verdict were considered; the CLI contract (`docs/cli.md`)
//! fixes 0, 1 and 2, and an unknown outcome is a transport error (1), so the verdict travels
//! in the JSON on stdout instead.

use digifinex_core::Error;
use digifinex_ureq::Client;

use crate::{one_line, print_json, Failure};

/// Exit code of a reconciled unknown outcome, whatever the verdict (a transport error).
pub(crate) const EXIT_RECONCILED: u8 = 1;

/// The exit codes of `call`, for its `--help`.
pub(crate) const EXIT_CODES_HELP: &str = "\
Exit codes: 0 success; 1 API, transport or decode error (also when the reconciliation below \
fails); 2 usage or validation error.

Order placements are checked against the market rules before sending (one public read of the \
pair or instrument list): an order off the price or amount grid, under the minimum amount or \
value, on a pair not listed or not open to API trading exits 2 naming the field, the rule and \
the nearest valid values. --round passive|nearest rounds it instead; --unchecked sends it as \
given.

Before a write, `call` reads the write's evidence set (a snapshot: for an order, the pair's \
open orders and recent history, 2 reads of weight 1 each; for a swap order 2 reads per \
instrument, weight 7, after a clock sync) and keeps the ids it saw as known. --no-snapshot skips those \
reads.

When a write (order, cancel, transfer, withdrawal, setting, copy-trading action) fails after \
its bytes may have reached the exchange, its outcome is unknown and it is never sent again. \
`call` then reconciles at once: it reads the account (open orders, history, records; reads \
only), prints the verdict as JSON on stdout ({\"outcome_unknown\", \"endpoint\", \
\"resolution\", \"verdicts\", \"what_to_do\", \"snapshot\"}) and what to do on stderr, and \
exits 1. \"resolution\" is one of:
  applied      the write took effect (the verdict names the order or record); do not send it \
again
  not_applied  it did not take effect; sending it again is safe
  ambiguous    the account cannot tell (without the snapshot: a record that may be an older \
identical order's; with it: another program placed the same order at the same moment)
  mixed        the elements of a batch differ; read the verdicts before acting
A verdict of applied or not_applied is never wrong; with the snapshot, orders are never \
ambiguous.";

/// Reconciles `error`, the unknown outcome of a write `client` sent, and returns the failure
/// that ends `call`: the verdict's exit code and a one-line message.
pub(crate) fn after_unknown(client: &Client, error: Error) -> Failure {
    let outcome = match client.reconcile(&error) {
        Ok(o) => o,
        Err(e) => {
            return Failure::Reconciled {
                code: 1,
                message: format!(
                    "{error}; reconciliation failed: {e}; the request may or may not have been \
                     applied: check the open orders or the account before retrying"
                ),
            }
        }
    };
    if let Err(f) = print_json(&outcome.report(&error)) {
        return f;
    }
    let code = EXIT_RECONCILED;
    let what = outcome.what_to_do();
    let first = what.lines().next().unwrap_or_default();
    Failure::Reconciled {
        code,
        message: one_line(&format!(
            "{error}; reconciled: {}; {first}",
            outcome.summary()
        )),
    }
}
