//! Issue 12: every catalog endpoint built from extreme values of each integer and decimal
//! parameter (`i64`/`u64` limits, 0, -1, 10^28, 28-digit fractions, and beyond) gives a request
//! or a validation error, never a panic (an overflow panics in a debug build and wraps, skipping
//! a check, in release).
//!
//! A valid parameter set per entry is found by probing its builder (the validation error names
//! the missing or wrong field; candidates are tried until it builds), as `fuzz/tests/seeds.rs`
//! does: a minimal set, and a maximal one with every optional parameter the builder accepts. The
//! numeric parameters of an entry are the integer and decimal parameters the core reads
//! (`take_int`/`take_decimal` calls in `src/`) that the entry accepts, any other parameter whose
//! valid value is a number, and the numbers inside the spot batch `list`; the swap batch
//! endpoints have them in their JSON array body's element.
//!
//! * `every_numeric_parameter_of_every_entry_takes_every_extreme`: deterministic, every entry x
//!   every numeric parameter x the fixed extreme list, on both sets, as text and as a JSON
//!   number; pairs of parameters at extremes together (`start_time=-1 end_time=i64::MAX`); all
//!   at once; extreme build times and receive windows.
//! * `extreme_parameters_never_panic` (proptest): random entries with random subsets of their
//!   numeric parameters set to extremes or random wide numbers.

// Reads its fixtures from files: the core's no-I/O lint (`core/clippy.toml`) is for the library.
#![allow(clippy::disallowed_methods)]

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::OnceLock;

use digifinex_core::catalog::{self, CatalogEntry, ParamMap};
use digifinex_core::{Config, Credentials, Error, TimestampMillis, ValidationKind};
use proptest::prelude::*;

const NOW: TimestampMillis = TimestampMillis(1_700_000_000_000);

/// Integer extremes: 0, -1, the 32- and 64-bit limits and one past them, 10^28, the largest
/// `Decimal` and one past it, 2^128.
const INTEGERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2147483647",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "-18446744073709551616",
    "10000000000000000000000000000",
    "-10000000000000000000000000000",
    "79228162514264337593543950335",
    "79228162514264337593543950336",
    "-79228162514264337593543950335",
    "340282366920938463463374607431768211456",
];

/// Decimal extremes: 28-digit fractions (the smallest positive `Decimal`, 28 and 29 significant
/// digits), one digit beyond, exponent forms at and past the range.
const DECIMALS: &[&str] = &[
    "0.0000000000000000000000000001",
    "-0.0000000000000000000000000001",
    "0.00000000000000000000000000001",
    "0.1234567890123456789012345678",
    "9.9999999999999999999999999999",
    "7.9228162514264337593543950335",
    "7922816251426433759354395033.5",
    "0.0",
    "-0.0",
    "0e-50",
    "1e28",
    "-1e28",
    "1e29",
    "1e-28",
    "1e-29",
    "1E+27",
    "1e308",
    "1e-400",
    "1e999999999999999999999",
    "9223372036854775807.5",
];

/// The pairs sweep uses these on both members of each pair.
const PAIR_VALUES: &[&str] = &[
    "-1",
    "0",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "10000000000000000000000000000",
    "0.0000000000000000000000000001",
    "1e28",
];

/// Build times (milliseconds) and receive windows at their limits.
const TIMES: &[i64] = &[i64::MIN, i64::MIN + 1, -1, 0, i64::MAX - 1, i64::MAX];
const WINDOWS: &[Option<u64>] = &[None, Some(0), Some(1), Some(u64::MAX)];

fn extremes() -> impl Iterator<Item = &'static str> {
    INTEGERS.iter().chain(DECIMALS).copied()
}

// ---------------------------------------------------------------------------------------------
// Parameter sets

/// A parameter value: text (`k=v`, or a JSON string in a body), or a raw JSON token (a JSON
/// number, as the CLI's `--json` passes it).
#[derive(Clone, Debug)]
enum Value {
    Text(String),
    Raw(String),
}

impl Value {
    fn json(&self) -> String {
        match self {
            Value::Text(s) => serde_json::Value::String(s.clone()).to_string(),
            Value::Raw(s) => s.clone(),
        }
    }
}

/// A parameter set: text parameters, or (array mode, the swap batch endpoints) the fields of the
/// one element of a JSON array body.
#[derive(Clone, Debug, Default)]
struct Probe {
    text: Vec<(String, Value)>,
    element: Option<Vec<(String, Value)>>,
}

fn object(fields: &[(String, Value)]) -> String {
    let members: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}:{}", serde_json::Value::String(k.clone()), v.json()))
        .collect();
    format!("{{{}}}", members.join(","))
}

impl Probe {
    fn params(&self) -> Result<ParamMap, Error> {
        let mut p = ParamMap::new();
        let mut raw = Vec::new();
        for (k, v) in &self.text {
            match v {
                Value::Text(s) => p.insert_text(k.clone(), s.clone()),
                Value::Raw(_) => raw.push((k.clone(), v.clone())),
            }
        }
        if !raw.is_empty() {
            p.insert_json_object(&object(&raw))?;
        }
        if let Some(fields) = &self.element {
            p.insert_json(&format!("[{}]", object(fields)))?;
        }
        Ok(p)
    }

    fn build_with(
        &self,
        entry: &CatalogEntry,
        config: &Config,
        now: TimestampMillis,
    ) -> Result<http::Request<Vec<u8>>, Error> {
        let params = self.params()?;
        let credentials = Credentials::new("test-key", "test-secret");
        (entry.build)(params, config, Some(&credentials), now)
    }

    fn build(&self, entry: &CatalogEntry) -> Result<http::Request<Vec<u8>>, Error> {
        self.build_with(entry, &Config::default(), NOW)
    }

    fn fields(&mut self, element: bool) -> &mut Vec<(String, Value)> {
        if element {
            self.element.get_or_insert_with(Vec::new)
        } else {
            &mut self.text
        }
    }

    fn has(&self, name: &str) -> bool {
        self.text
            .iter()
            .chain(self.element.iter().flatten())
            .any(|(k, _)| k == name)
    }

    /// Sets `slot` to `value` (replacing any value it had).
    fn set(&mut self, slot: &Slot, value: Value) {
        match slot {
            Slot::Text(name) | Slot::Element(name) => {
                let fields = self.fields(matches!(slot, Slot::Element(_)));
                fields.retain(|(k, _)| k != name);
                fields.push((name.clone(), value));
            }
            Slot::List(name) => {
                let Some(i) = self.text.iter().position(|(k, _)| k == "list") else {
                    return;
                };
                let Value::Text(list) = &self.text[i].1 else {
                    return;
                };
                let mut items: Vec<BTreeMap<String, Box<serde_json::value::RawValue>>> =
                    serde_json::from_str(list).expect("the base list is a JSON array");
                let token =
                    serde_json::value::RawValue::from_string(value.json()).unwrap_or_else(|_| {
                        serde_json::value::RawValue::from_string(
                            serde_json::Value::String(value.json()).to_string(),
                        )
                        .expect("a JSON string")
                    });
                items[0].insert(name.clone(), token);
                let text = serde_json::to_string(&items).expect("serialisable");
                self.text[i].1 = Value::Text(text);
            }
        }
    }
}

/// Where a numeric parameter lives.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    /// A parameter (`k=v`, or a member of a JSON object body).
    Text(String),
    /// A field of the swap batch array body's element.
    Element(String),
    /// A field of the first order in the spot batch `list`.
    List(String),
}

/// Candidate wire values for a parameter name, most plausible first.
fn candidates(name: &str) -> Vec<&'static str> {
    let specific: &[&'static str] = match name {
        "symbol" => &["btc_usdt"],
        "instrument_id" => &["BTCUSDTPERP"],
        "market" => &["spot", "margin"],
        "currency" | "currency_mark" => &["USDT", "BTC"],
        "period" => &["1", "1min", "5", "60", "1D"],
        "granularity" => &["1m", "4h", "1d", "1min", "60"],
        "limit" | "page" | "num" | "size" | "n" => &["10", "5", "1", "100"],
        "start_time" | "start_timestamp" => &["1699990000", "1699990000000"],
        "end_time" | "end_timestamp" => &["1700000000", "1700000000000"],
        "type" => &["buy", "1", "limit", "2", "0", "sell_market"],
        "side" => &["buy", "1", "long", "sell"],
        "order_type" => &["0", "limit", "1"],
        "order_id" | "open_order_id" | "withdraw_id" => &["1234567890", "abc123"],
        "price" | "limit_price" | "stop_trigger_price" | "profit_trigger_price" => {
            &["30000", "0.01"]
        }
        "amount" | "transfer_amount" => &["1", "0.5"],
        "from" | "to" => &["1", "2", "3", "spot", "margin", "swap"],
        "leverage" => &["10", "5"],
        "margin_mode" => &["crossed", "isolated", "1"],
        "address" => &["0x1234567890abcdef"],
        "chain" => &["ERC20", "TRC20"],
        "direct" => &["prev", "next", "1"],
        "list" => &[r#"[{"type":"buy","price":"0.01","amount":"1"}]"#],
        _ => &[],
    };
    let generic = [
        "1",
        "0",
        "2",
        "btc_usdt",
        "BTCUSDTPERP",
        "USDT",
        "0.01",
        "buy",
        "1700000000",
        "1699990000000",
        "spot",
        "true",
    ];
    let mut v: Vec<&'static str> = specific.to_vec();
    for g in generic {
        if !v.contains(&g) {
            v.push(g);
        }
    }
    v
}

/// Parameter names the core reads: `take_*("name")` calls in `src/`, and whether each is read as
/// an integer or a decimal.
fn param_names() -> &'static BTreeMap<String, bool> {
    static NAMES: OnceLock<BTreeMap<String, bool>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut out = BTreeMap::new();
        let mut sources = Vec::new();
        let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).expect("core/src") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let src = std::fs::read_to_string(&p).expect("source");
                sources.push(src.clone());
                for (i, _) in src.match_indices("take_") {
                    let rest = &src[i..];
                    let Some(open) = rest.find("(\"") else {
                        continue;
                    };
                    let call = &rest[..open];
                    if open > 40 || call.contains(['\n', ' ', ';']) {
                        continue;
                    }
                    let name: String = rest[open + 2..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if name.is_empty() {
                        continue;
                    }
                    let numeric = call.contains("int") || call.contains("decimal");
                    *out.entry(name).or_insert(false) |= numeric;
                }
            }
        }
        // The fields of `request!` declarations: `<kind> name: Type [as "wire"]`. Numeric:
        // integers, decimals, money, times and integer-coded enums (`int_enum!`).
        let coded: Vec<String> = sources
            .iter()
            .flat_map(|src| src.split("int_enum! {").skip(1))
            .filter_map(|rest| {
                let at = rest.find("pub enum ")?;
                let name: String = rest[at + 9..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                Some(name)
            })
            .collect();
        let numeric_type = |t: &str| {
            [
                "u8",
                "u16",
                "u32",
                "u64",
                "i64",
                "Decimal",
                "Price",
                "Amount",
                "Size",
                "TimestampSecs",
                "TimestampMillis",
            ]
            .contains(&t)
                || coded.iter().any(|c| c == t)
        };
        for src in &sources {
            for line in src.lines() {
                let mut words = line.split_whitespace();
                let (Some(kind), Some(field)) = (words.next(), words.next()) else {
                    continue;
                };
                if !["req", "opt", "def", "path"].contains(&kind) || !field.ends_with(':') {
                    continue;
                }
                let ty: String = words
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                let wire = match (words.next(), words.next()) {
                    (Some("as"), Some(w)) => w.trim_matches(|c| c == '"' || c == ',').to_owned(),
                    _ => field.trim_end_matches(':').to_owned(),
                };
                *out.entry(wire).or_insert(false) |= numeric_type(&ty);
            }
        }
        out
    })
}

/// Finds a parameter set the entry builds with, starting from `probe`.
fn solve(entry: &CatalogEntry, mut probe: Probe) -> Option<Probe> {
    let mut tried: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..60 {
        let (field, reason) = match probe.build(entry) {
            Ok(_) => return Some(probe),
            Err(Error::Validation { field, reason, .. }) => (field.into_owned(), reason),
            Err(_) => return None,
        };
        if field == "body" && reason.contains("array") && probe.element.is_none() {
            probe.element = Some(Vec::new());
            continue;
        }
        let (element, name) = match field.strip_prefix("[0].") {
            Some(n) => (true, n.to_owned()),
            None => (false, field.clone()),
        };
        if name == "credentials" || name.contains('[') || name.contains('.') {
            return None;
        }
        let n = tried.entry(format!("{element}/{name}")).or_insert(0);
        let value = *candidates(&name).get(*n)?;
        *n += 1;
        let fields = probe.fields(element);
        fields.retain(|(k, _)| *k != name);
        fields.push((name, Value::Text(value.to_owned())));
    }
    None
}

/// What the sweeps need to know of one entry.
struct Case {
    entry: &'static CatalogEntry,
    /// The minimal and the maximal valid parameter set.
    bases: [Probe; 2],
    /// Its numeric parameters.
    slots: Vec<Slot>,
}

fn is_number(text: &str) -> bool {
    digifinex_core::__fuzz::parse_decimal(text).is_ok()
}

fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let names = param_names();
        catalog::all()
            .map(|entry| {
                let min = solve(entry, Probe::default())
                    .unwrap_or_else(|| panic!("no valid parameters found for {}", entry.meta.name));
                let element = min.element.is_some();
                // Optional parameters: any name/value the builder accepts on top of the minimal
                // set.
                let mut max = min.clone();
                for name in names.keys() {
                    if max.has(name) {
                        continue;
                    }
                    for value in candidates(name) {
                        let mut p = max.clone();
                        p.fields(element)
                            .push((name.clone(), Value::Text(value.to_owned())));
                        if p.build(entry).is_ok() {
                            max = p;
                            break;
                        }
                    }
                }
                let slots = numeric_slots(entry, &max, element);
                Case {
                    entry,
                    bases: [min, max],
                    slots,
                }
            })
            .collect()
    })
}

/// The numeric parameters of `entry`: integer and decimal parameters it accepts (an optional one
/// even when no candidate value was valid), parameters of `max` whose value is a number, and the
/// numbers of the spot batch `list`.
fn numeric_slots(entry: &CatalogEntry, max: &Probe, element: bool) -> Vec<Slot> {
    let mut slots = BTreeSet::new();
    let slot = |name: &str, in_element: bool| {
        if in_element {
            Slot::Element(name.to_owned())
        } else {
            Slot::Text(name.to_owned())
        }
    };
    for (fields, in_element) in [(Some(&max.text), false), (max.element.as_ref(), true)] {
        for (k, v) in fields.into_iter().flatten() {
            match v {
                Value::Text(t) | Value::Raw(t) if is_number(t) => {
                    slots.insert(slot(k, in_element));
                }
                Value::Text(t) if k == "list" => {
                    let items: Vec<BTreeMap<String, serde_json::Value>> =
                        serde_json::from_str(t).expect("list is a JSON array");
                    for (name, value) in &items[0] {
                        if value.as_str().is_some_and(is_number) || value.is_number() {
                            slots.insert(Slot::List(name.clone()));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    for (name, numeric) in param_names() {
        if !numeric {
            continue;
        }
        let s = slot(name, element);
        if slots.contains(&s) {
            continue;
        }
        let mut p = max.clone();
        p.set(&s, Value::Text("1".to_owned()));
        let refused = match p.build(entry) {
            Err(Error::Validation { field, kind, .. }) => {
                let field = field.strip_prefix("[0].").unwrap_or(&field);
                field == name && kind == ValidationKind::Unknown
            }
            _ => false,
        };
        if !refused {
            slots.insert(s);
        }
    }
    slots.into_iter().collect()
}

// ---------------------------------------------------------------------------------------------
// The property

/// Builds `probe` for `entry`: a request or a validation error; anything else, or a panic, is
/// described in the error.
fn check(
    entry: &CatalogEntry,
    probe: &Probe,
    config: &Config,
    now: TimestampMillis,
) -> Result<(), String> {
    match catch_unwind(AssertUnwindSafe(|| probe.build_with(entry, config, now))) {
        Ok(Ok(req)) => {
            let uri = req.uri().to_string();
            let base = if entry.meta.family == digifinex_core::Family::Spot {
                &config.spot_base_url
            } else {
                &config.swap_base_url
            };
            if uri.starts_with(base.as_str()) {
                Ok(())
            } else {
                Err(format!("{}: request to {uri}", entry.meta.name))
            }
        }
        Ok(Err(Error::Validation { field, .. })) if !field.is_empty() => Ok(()),
        Ok(Err(e)) => Err(format!(
            "{}: not a validation error: {e:?} from {probe:?}",
            entry.meta.name
        )),
        Err(_) => Err(format!(
            "{}: panicked (see above) on {probe:?} at {now:?}, recv window {:?}",
            entry.meta.name, config.recv_window
        )),
    }
}

#[test]
fn every_numeric_parameter_of_every_entry_takes_every_extreme() {
    let config = Config::default();
    let mut failures = Vec::new();
    let mut builds = 0usize;
    let mut run = |entry: &CatalogEntry, probe: &Probe, config: &Config, now| {
        builds += 1;
        if let Err(e) = check(entry, probe, config, now) {
            failures.push(e);
        }
    };
    let mut covered = BTreeSet::new();
    for case in cases() {
        for base in &case.bases {
            // Each numeric parameter alone, as text and as a JSON number.
            for slot in &case.slots {
                let name = match slot {
                    Slot::Text(n) | Slot::Element(n) | Slot::List(n) => n,
                };
                covered.insert(name.clone());
                for v in extremes() {
                    for value in [Value::Text(v.to_owned()), Value::Raw(v.to_owned())] {
                        let mut p = base.clone();
                        p.set(slot, value);
                        run(case.entry, &p, &config, NOW);
                    }
                }
            }
            // Every numeric parameter at the same extreme.
            for v in extremes() {
                let mut p = base.clone();
                for slot in &case.slots {
                    p.set(slot, Value::Text(v.to_owned()));
                }
                run(case.entry, &p, &config, NOW);
            }
        }
        // Pairs at extremes together (ranges: `start_time=-1 end_time=i64::MAX`).
        let max = &case.bases[1];
        for (i, a) in case.slots.iter().enumerate() {
            for b in &case.slots[i + 1..] {
                for va in PAIR_VALUES {
                    for vb in PAIR_VALUES {
                        let mut p = max.clone();
                        p.set(a, Value::Text((*va).to_owned()));
                        p.set(b, Value::Text((*vb).to_owned()));
                        run(case.entry, &p, &config, NOW);
                    }
                }
            }
        }
        // Extreme build times and receive windows.
        for &t in TIMES {
            for &w in WINDOWS {
                let mut c = Config::default();
                if let Some(w) = w {
                    c = c.with_recv_window(w);
                }
                for base in &case.bases {
                    run(case.entry, base, &c, TimestampMillis(t));
                }
            }
        }
    }
    eprintln!(
        "{builds} builds over {} entries; numeric parameters: {covered:?}",
        cases().len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The discovery reached every integer and decimal parameter the core reads.
    for (name, numeric) in param_names() {
        if *numeric {
            assert!(covered.contains(name), "{name} is in no entry's sweep");
        }
    }
}

#[test]
fn discovery_finds_the_numeric_parameters() {
    let find = |name: &str| {
        cases()
            .iter()
            .find(|c| c.entry.meta.name == name)
            .unwrap_or_else(|| panic!("{name} in the catalog"))
    };
    let kline = find("spot.kline");
    for p in ["start_time", "end_time"] {
        assert!(kline.slots.contains(&Slot::Text(p.to_owned())), "{p}");
    }
    let with_list = cases()
        .iter()
        .filter(|c| c.slots.contains(&Slot::List("price".to_owned())))
        .count();
    assert!(with_list > 0, "no entry with a batch list");
    let with_element = cases()
        .iter()
        .filter(|c| c.slots.iter().any(|s| matches!(s, Slot::Element(_))))
        .count();
    assert!(with_element > 0, "no entry with an array body");
}

/// The report of issue 12, as the CLI sends it: `digifinex request GET /v3/kline symbol=btc_usdt
/// period=1 start_time=-1 end_time=9223372036854775807` panicked in a debug build (subtract with
/// overflow) and skipped the 500-candle check in release.
#[test]
fn kline_range_at_the_i64_limits_is_a_validation_error() {
    let (entry, vars) = catalog::find("GET", "/v3/kline").expect("kline in the catalog");
    for (start, end) in [
        ("-1", "9223372036854775807"),
        ("-9223372036854775808", "9223372036854775807"),
        ("-9223372036854775808", "0"),
    ] {
        let mut p = ParamMap::new();
        for (k, v) in &vars {
            p.insert_path_var(k.clone(), v.clone());
        }
        p.insert_text("symbol", "btc_usdt");
        p.insert_text("period", "1");
        p.insert_text("start_time", start);
        p.insert_text("end_time", end);
        match (entry.build)(p, &Config::default(), None, NOW) {
            Err(Error::Validation { field, reason, .. }) => {
                assert_eq!(field, "start_time", "{start}..{end}: {reason}")
            }
            other => panic!("{start}..{end}: {other:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Proptest

fn wide_number() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(INTEGERS).prop_map(str::to_owned),
        proptest::sample::select(DECIMALS).prop_map(str::to_owned),
        any::<i64>().prop_map(|v| v.to_string()),
        any::<u64>().prop_map(|v| v.to_string()),
        any::<i128>().prop_map(|v| v.to_string()),
        "-?[0-9]{1,30}\\.[0-9]{1,30}",
        "-?[0-9]{1,3}(\\.[0-9]{0,3})?[eE][+-]?[0-9]{1,4}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Random entries with random numeric parameters at extremes (on the minimal or the
    /// maximal set, as text or JSON numbers, at an extreme build time): a request or a
    /// validation error. A panic fails the test (and is shrunk).
    #[test]
    fn extreme_parameters_never_panic(
        entry in any::<proptest::sample::Index>(),
        max in any::<bool>(),
        values in proptest::collection::vec(
            (any::<proptest::sample::Index>(), wide_number(), any::<bool>()),
            1..6,
        ),
        time in prop_oneof![Just(NOW.0), proptest::sample::select(TIMES), any::<i64>()],
        window in proptest::sample::select(WINDOWS),
    ) {
        let case = &cases()[entry.index(cases().len())];
        let mut p = case.bases[usize::from(max)].clone();
        if !case.slots.is_empty() {
            for (slot, v, raw) in values {
                let slot = &case.slots[slot.index(case.slots.len())];
                p.set(slot, if raw { Value::Raw(v) } else { Value::Text(v) });
            }
        }
        let mut config = Config::default();
        if let Some(w) = window {
            config = config.with_recv_window(w);
        }
        // Outside `check`'s `catch_unwind`, so that proptest sees a panic and shrinks it.
        match p.build_with(case.entry, &config, TimestampMillis(time)) {
            Ok(_) => {}
            Err(Error::Validation { field, .. }) => prop_assert!(!field.is_empty()),
            Err(e) => prop_assert!(false, "{}: {e:?} from {p:?}", case.entry.meta.name),
        }
    }
}
