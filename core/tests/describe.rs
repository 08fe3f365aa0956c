//! Every catalog endpoint describes its parameters from its declaration (what `digifinex
//! describe` prints), and the description is true: a request made of the described samples
//! builds.

use digifinex_core::catalog::{self, ParamInfo, ParamMap};
use digifinex_core::{Config, Credentials, Error, TimestampMillis, ValidationKind};

const NOW: TimestampMillis = TimestampMillis(1_700_000_000_000);

/// The sample value of a parameter: the described one, else a placeholder (its name in upper
/// case), as the CLI's sample line writes it; times (which have no sample: "now" moves) an hour
/// before the build time for a window's start, the build time otherwise.
fn sample(p: &ParamInfo) -> String {
    let ms = if p.name.contains("start") {
        NOW.0 - 3_600_000
    } else {
        NOW.0
    };
    match p.type_name.as_ref() {
        "time (Unix seconds)" => return (ms / 1000).to_string(),
        "time (Unix milliseconds)" => return ms.to_string(),
        _ => {}
    }
    p.sample()
        .map(str::to_owned)
        .unwrap_or_else(|| p.name.trim_start_matches("[].").to_ascii_uppercase())
}

/// The wire parameters of a sample call: every required parameter (or, with `all`, every
/// parameter) with its sample; members of an array body become one element.
fn sample_params(params: &[ParamInfo], path_vars: bool, all: bool) -> ParamMap {
    let mut map = ParamMap::new();
    let mut element = serde_json::Map::new();
    for p in params
        .iter()
        .filter(|p| all || p.required || p.required_when.is_some())
    {
        if p.name == "[]" {
            continue;
        }
        if let Some(member) = p.name.strip_prefix("[].") {
            element.insert(member.to_owned(), serde_json::Value::String(sample(p)));
        } else if p.in_path {
            if path_vars {
                map.insert_path_var(p.name.to_string(), sample(p));
            }
        } else {
            map.insert_text(p.name.to_string(), sample(p));
        }
    }
    if params.iter().any(|p| p.name == "[]") {
        map.insert_json(&serde_json::Value::Array(vec![element.into()]).to_string())
            .unwrap();
    }
    map
}

#[test]
fn every_endpoint_describes_its_parameters() {
    let mut count = 0;
    for e in catalog::all() {
        count += 1;
        let name = e.meta.name;
        let params = (e.params)();
        let mut names: Vec<&str> = params.iter().map(|p| p.name.as_ref()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), params.len(), "{name}: duplicate names");
        for p in &params {
            assert_ne!(p.type_name, "value", "{name}.{}: undescribed type", p.name);
            assert!(!p.doc.is_empty(), "{name}.{}: no documentation", p.name);
            if !p.required && p.name != "[]" {
                // An optional parameter with a closed set of values lists them.
                if p.type_name == "code" || p.type_name == "word" {
                    assert!(!p.values.is_empty(), "{name}.{}", p.name);
                }
            }
        }
        // The path's `{market}` is described as the path's.
        if e.meta.path.contains("{market}") {
            let market = params.iter().find(|p| p.name == "market").expect(name);
            assert!(market.required && market.in_path);
            assert_eq!(market.values.len(), 2, "{name}");
        }
    }
    assert_eq!(count, 72);
}

/// A request of the described samples builds for every endpoint: required parameters only, and
/// every parameter (the samples agree with the checks and with what the reader takes).
#[test]
fn described_samples_build() {
    let config = Config::default();
    let creds = Credentials::new("k", "s");
    let mut failures = Vec::new();
    for e in catalog::all() {
        let params = (e.params)();
        for all in [false, true] {
            let map = sample_params(&params, true, all);
            if let Err(err) = (e.build)(map, &config, Some(&creds), NOW) {
                failures.push(format!(
                    "{} {} (all: {all}): {err}",
                    e.meta.method.as_str(),
                    e.meta.display_path()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The error of a request built from `k=v` parameters at `METHOD PATH`.
fn catalog_failure(method: &str, path: &str, params: &[(&str, &str)]) -> Error {
    let (entry, vars) = catalog::find(method, path).expect("endpoint");
    let mut map = ParamMap::new();
    for (k, v) in vars {
        map.insert_path_var(k, v);
    }
    for (k, v) in params {
        map.insert_text(*k, *v);
    }
    let creds = Credentials::new("k", "s");
    match (entry.build)(map, &Config::default(), Some(&creds), NOW) {
        Ok(r) => panic!("built {}", r.uri()),
        Err(e) => e,
    }
}

/// The message of [`catalog_failure`].
fn catalog_error(method: &str, path: &str, params: &[(&str, &str)]) -> String {
    catalog_failure(method, path, params).to_string()
}

#[test]
fn unknown_parameters_name_the_endpoints_parameters() {
    assert_eq!(
        catalog_error(
            "GET",
            "/v3/order_book",
            &[("symbol", "btc_usdt"), ("limt", "5")]
        ),
        "unknown parameter `limt`: did you mean `limit`? (this endpoint takes: symbol, limit)"
    );
    // A mistyped required parameter is reported as the typo, not as the missing one.
    assert_eq!(
        catalog_error("GET", "/v3/order_book", &[("symbl", "btc_usdt")]),
        "unknown parameter `symbl`: did you mean `symbol`? (this endpoint takes: symbol, limit)"
    );
    assert_eq!(
        catalog_error(
            "GET",
            "/v3/order_book",
            &[("depth", "5"), ("symbol", "btc_usdt")]
        ),
        "unknown parameter `depth`: this endpoint takes: symbol, limit"
    );
    assert_eq!(
        catalog_error("GET", "/v3/ping", &[("x", "1")]),
        "unknown parameter `x`: this endpoint takes no parameters"
    );
    assert_eq!(
        catalog_error("GET", "/v3/spot/order/current", &[("pair", "btc_usdt")]),
        "unknown parameter `pair`: this endpoint takes: market, symbol"
    );
    assert_eq!(
        catalog_error(
            "GET",
            "/swap/v2/public/depth",
            &[("instrument", "BTCUSDTPERP")]
        ),
        "unknown parameter `instrument`: this endpoint takes: instrument_id, limit"
    );
    assert_eq!(
        catalog_error("GET", "/v3/order_book", &[]),
        "missing required parameter `symbol`"
    );
    assert_eq!(
        catalog_error(
            "GET",
            "/swap/v2/public/ticker",
            &[("instrument_id", "BTCUSDT")]
        ),
        "invalid `instrument_id`: \"BTCUSDT\" is not a swap instrument id: did you mean \
         BTCUSDTPERP? (ids are upper-case letters and digits ending in PERP)"
    );
}

/// The kind of each refusal is typed (no message is parsed back): the typo is `Unknown`, the
/// absent parameter `Missing`, the bad value `Invalid`, each naming its field.
#[test]
fn validation_kinds_are_typed() {
    let kind = |method: &str, path: &str, params: &[(&str, &str)]| {
        let e = catalog_failure(method, path, params);
        (e.field().map(str::to_owned), e.validation_kind())
    };
    let get = |field: &str, k| (Some(field.to_owned()), Some(k));
    assert_eq!(
        kind(
            "GET",
            "/v3/order_book",
            &[("symbol", "btc_usdt"), ("limt", "5")]
        ),
        get("limt", ValidationKind::Unknown)
    );
    assert_eq!(
        kind("GET", "/v3/order_book", &[]),
        get("symbol", ValidationKind::Missing)
    );
    assert_eq!(
        kind(
            "GET",
            "/v3/order_book",
            &[("symbol", "btc_usdt"), ("limit", "151")]
        ),
        get("limit", ValidationKind::Invalid)
    );
    // A limit order without its price: missing, with the condition in the reason.
    let e = catalog_failure(
        "POST",
        "/v3/spot/order/new",
        &[("symbol", "btc_usdt"), ("type", "buy"), ("amount", "1")],
    );
    assert!(
        matches!(
            &e,
            Error::Validation { field, kind: ValidationKind::Missing, reason }
                if field == "price" && reason == "for a limit order"
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "missing required parameter `price` for a limit order"
    );
}

/// What the declarations say, for three endpoints: values, ranges and defaults.
#[test]
fn described_values_ranges_and_defaults() {
    let params = |method, path| {
        let (e, _) = catalog::find(method, path).expect("endpoint");
        (e.params)()
    };
    let find = |ps: &[ParamInfo], name: &str| -> ParamInfo {
        ps.iter().find(|p| p.name == name).cloned().expect(name)
    };
    let book = params("GET", "/v3/order_book");
    let limit = find(&book, "limit");
    assert_eq!(limit.rules, ["1..=150"]);
    assert_eq!(limit.default.as_deref(), Some("10"));
    assert!(!limit.required);
    let symbol = find(&book, "symbol");
    assert!(symbol.required);
    assert_eq!(symbol.sample(), Some("btc_usdt"));

    let open = params("GET", "/swap/v2/trade/open_orders");
    let status = find(&open, "order_status");
    let wires: Vec<&str> = status.values.iter().map(|c| c.wire.as_ref()).collect();
    assert_eq!(wires, ["0", "1"]);
    assert_eq!(find(&open, "limit").default.as_deref(), Some("20"));

    let current = params("POST", "/swap/v2/follow/user_center_current");
    assert_eq!(find(&current, "page").default.as_deref(), Some("1"));
    assert_eq!(find(&current, "size").default.as_deref(), Some("10"));
    let view = find(&current, "type");
    assert!(view.required);
    assert_eq!(view.values.len(), 2);
}
