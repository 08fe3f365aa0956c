//! `ENDPOINTS.md` is generated from the catalog; this test fails when it is out of date.
//!
//! Regenerate with `UPDATE_ENDPOINTS=1 cargo test -p digifinex-tests --test endpoints_doc`.

use digifinex_core::catalog;

fn render() -> String {
    let mut s = String::from(
        "# Endpoints\n\n\
         Generated from the catalog (`digifinex_core::catalog::all()`) by\n\
         `UPDATE_ENDPOINTS=1 cargo test -p digifinex-tests --test endpoints_doc`; a test fails when\n\
         this file is out of date. `digifinex endpoints` prints the same list.\n\n\
         - **signed**: the request carries ACCESS-KEY / ACCESS-SIGN / ACCESS-TIMESTAMP.\n\
         - **idempotent**: safe to repeat; only these are retried automatically. Declared per\n  \
           endpoint, not inferred from the method: the six copy-trading reads are POST but read\n  \
           only. Orders, cancels, transfers and withdrawals never are: a failure after sending is\n  \
           reported as `Error::OutcomeUnknown`.\n\
         - **weight**: the request weight where the venue publishes one (swap: the weights its\n  \
           `GET /swap/v2/public/api_weight` reported, per docs/protocol.md; a table loaded at run time\n  \
           wins). Unlisted routes count 1 in the client's weight budget.\n",
    );
    let mut family = None;
    for e in catalog::all() {
        let m = &e.meta;
        if family != Some(m.family) {
            family = Some(m.family);
            s.push_str(match m.family {
                digifinex_core::Family::Spot => "\n## Spot and margin (REST v3)\n\n",
                _ => "\n## Perpetual swap and copy trading (REST v2)\n\n",
            });
            s.push_str(
                "| method | path | request type | response type | signed | idempotent | weight |\n",
            );
            s.push_str("|---|---|---|---|---|---|---|\n");
        }
        let short = |t: &str| {
            t.replace("digifinex_core::", "")
                .replace("alloc::vec::", "")
        };
        s.push_str(&format!(
            "| {} | `{}` | `{}` | `{}` | {} | {} | {} |\n",
            m.method.as_str(),
            m.display_path(),
            short((e.request_type)()),
            short((e.response_type)()),
            if m.signed { "yes" } else { "no" },
            if m.idempotent { "yes" } else { "no" },
            m.weight.map_or_else(|| "-".to_owned(), |w| w.to_string()),
        ));
    }
    s
}

#[test]
fn endpoints_md_is_up_to_date() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../ENDPOINTS.md");
    let want = render();
    if std::env::var_os("UPDATE_ENDPOINTS").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "ENDPOINTS.md is out of date: run `UPDATE_ENDPOINTS=1 cargo test -p digifinex-tests --test endpoints_doc`"
    );
}
