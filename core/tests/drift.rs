//! Drift conformance: every catalog endpoint survives the classes of drift the live venue shows
//! (`docs/protocol.md`, "Drift every decoder must survive"), on every field.
//!
//! For each endpoint, `core/tests/data/bodies/NAME.json` holds a full success body (every field
//! the model types, with realistic values; its `source` says where the shape comes from) and
//! the list of `required` fields (JSON paths with `[]` for any index: `ticker[].symbol`,
//! `bids[][0]`, `data.order_id`). The bodies with one field changed are generated here:
//!
//! * each leaf replaced by each placeholder (`null`, `""`, `"-"`): an optional field decodes to
//!   absent and nothing else changes; a required field fails naming its path;
//! * each object member removed: the same;
//! * the fixture itself decodes with every field set in some row (or listed under `absent`:
//!   fields of a shared model this endpoint never sends), so it covers every field the model
//!   types;
//! * each object member replaced by junk (an object where a value belongs): an optional field
//!   decodes to absent, the answer still decodes, and the field is reported unreadable at its
//!   exact path; a required field fails naming its path. A member the model does not type fails
//!   this check unless the fixture lists it under `ignored`, so fields the venue sends are not
//!   dropped silently.
//!
//! `DRIFT_ONLY=spot.order` limits the run to entries whose name contains the text.

// Reads its fixtures from files: the core's no-I/O lint (`core/clippy.toml`) is for the library.
#![allow(clippy::disallowed_methods)]

use std::fs;
use std::path::{Path, PathBuf};

use digifinex_core::catalog::{self, CatalogEntry};
use digifinex_core::Error;
use serde_json::{json, Value};

#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bodies")
}

/// `a.b[].c`: object keys joined by dots, every list index as `[]`; the column of a positional
/// row (an array inside an array: a book level, a candle) keeps its number (`bids[][0]`).
fn norm(path: &[Seg]) -> String {
    let mut s = String::new();
    let mut previous_was_index = false;
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
                previous_was_index = false;
            }
            Seg::Index(i) if previous_was_index => {
                s.push_str(&format!("[{i}]"));
            }
            Seg::Index(_) => {
                s.push_str("[]");
                previous_was_index = true;
            }
        }
    }
    s
}

/// Whether a leaf is a column of a positional row.
fn is_column(path: &[Seg]) -> bool {
    matches!(path, [.., Seg::Index(_), Seg::Index(_)])
}

/// A serde_path_to_error path (`data.list[3].price`, `bids[2][0]`) in the same form.
fn norm_text(path: &str) -> String {
    let mut out = String::new();
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push_str("[]");
            }
            ']' => in_index = false,
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out
}

fn leaves(v: &Value, path: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                path.push(Seg::Key(k.clone()));
                leaves(v, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                path.push(Seg::Index(i));
                leaves(v, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

fn get_mut<'a>(v: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    let mut cur = v;
    for seg in path {
        cur = match seg {
            Seg::Key(k) => cur.get_mut(k.as_str())?,
            Seg::Index(i) => cur.get_mut(*i)?,
        };
    }
    Some(cur)
}

fn with(body: &Value, path: &[Seg], value: Option<Value>) -> Value {
    let mut b = body.clone();
    let (last, parent) = path.split_last().expect("a leaf has a path");
    let parent = get_mut(&mut b, parent).expect("the leaf's parent exists");
    match (last, value) {
        (Seg::Key(k), None) => {
            parent.as_object_mut().expect("object").remove(k);
        }
        (Seg::Key(k), Some(v)) => {
            parent[k.as_str()] = v;
        }
        (Seg::Index(i), Some(v)) => parent[*i] = v,
        (Seg::Index(_), None) => unreachable!("elements are not removed"),
    }
    b
}

/// The paths of `null` values in a decoded output.
fn nulls(v: &Value, path: &mut String, out: &mut Vec<String>) {
    match v {
        Value::Null => out.push(path.clone()),
        Value::Object(m) => {
            for (k, v) in m {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                nulls(v, path, out);
                path.truncate(len);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                nulls(v, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// The normalised paths (`list[].price`) of the values that are not `null` in an output.
fn values(v: &Value, path: &mut String, out: &mut Vec<String>) {
    match v {
        Value::Null => {}
        Value::Object(m) => {
            for (k, v) in m {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                values(v, path, out);
                path.truncate(len);
            }
        }
        Value::Array(a) => {
            for v in a {
                let len = path.len();
                path.push_str("[]");
                values(v, path, out);
                path.truncate(len);
            }
        }
        _ => out.push(path.clone()),
    }
}

fn count_leaves(v: &Value) -> usize {
    match v {
        Value::Object(m) => m.values().map(count_leaves).sum(),
        Value::Array(a) => a.iter().map(count_leaves).sum(),
        _ => 1,
    }
}

/// Leaves that differ between two rendered outputs (a container against a scalar counts its
/// leaves).
fn diff(a: &Value, b: &Value) -> usize {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter()
                .map(|k| {
                    diff(
                        x.get(k).unwrap_or(&Value::Null),
                        y.get(k).unwrap_or(&Value::Null),
                    )
                })
                .sum()
        }
        // A list of scalars may drop an absent element: elements not kept in order differ.
        (Value::Array(x), Value::Array(y))
            if x.len() != y.len() && x.iter().chain(y).all(|v| count_leaves(v) == 1) =>
        {
            x.len().max(y.len()) - common_subsequence(x, y)
        }
        (Value::Array(x), Value::Array(y)) => (0..x.len().max(y.len()))
            .map(|i| {
                diff(
                    x.get(i).unwrap_or(&Value::Null),
                    y.get(i).unwrap_or(&Value::Null),
                )
            })
            .sum(),
        _ if a == b => 0,
        _ => count_leaves(a).max(count_leaves(b)).max(1),
    }
}

/// Length of the longest common subsequence of two lists.
fn common_subsequence(x: &[Value], y: &[Value]) -> usize {
    let mut row = vec![0usize; y.len() + 1];
    for a in x {
        let mut diagonal = 0;
        for (j, b) in y.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if a == b {
                diagonal + 1
            } else {
                above.max(row[j])
            };
            diagonal = above;
        }
    }
    row[y.len()]
}

struct Fixture {
    status: u16,
    body: Value,
    required: Vec<String>,
    ignored: Vec<String>,
    /// Decoded fields (`list[].valuation_rate`) this endpoint never sends (a model shared with
    /// another endpoint).
    absent: Vec<String>,
}

fn load(entry: &CatalogEntry) -> Result<Fixture, String> {
    let file = fixtures().join(format!("{}.json", entry.meta.name));
    let text = fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    let list = |k: &str| -> Vec<String> {
        v.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    if v.get("source")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return Err(format!("{}: no `source`", file.display()));
    }
    Ok(Fixture {
        status: v.get("status").and_then(Value::as_u64).unwrap_or(200) as u16,
        body: v
            .get("body")
            .cloned()
            .ok_or(format!("{}: no `body`", file.display()))?,
        required: list("required"),
        ignored: list("ignored"),
        absent: list("absent"),
    })
}

type Decoded = Result<(Value, Vec<digifinex_core::Unreadable>), Error>;

fn decode(entry: &CatalogEntry, status: u16, body: &Value) -> Decoded {
    let bytes = serde_json::to_vec(body).expect("json");
    (entry.decode_report)(status, &http::HeaderMap::new(), &bytes)
}

/// Checks one endpoint; returns the problems found.
fn check(entry: &CatalogEntry, fx: &Fixture) -> Vec<String> {
    let name = entry.meta.name;
    let mut problems = Vec::new();
    let (base, unreadable) = match decode(entry, fx.status, &fx.body) {
        Ok(v) => v,
        Err(e) => return vec![format!("{name}: the fixture itself fails: {e}")],
    };
    if !unreadable.is_empty() {
        problems.push(format!(
            "{name}: the fixture has unreadable values: {unreadable:?}"
        ));
    }
    // The fixture sets every field the model types: each decoded field has a value in at least
    // one row (or the fixture says why the endpoint never sends it, under `absent`).
    let mut absent = Vec::new();
    nulls(&base, &mut String::new(), &mut absent);
    let mut set = Vec::new();
    values(&base, &mut String::new(), &mut set);
    let mut reported = std::collections::BTreeSet::new();
    for a in absent {
        let a = norm_text(&a);
        if !set.contains(&a) && !fx.absent.contains(&a) && reported.insert(a.clone()) {
            problems.push(format!(
                "{name}: the fixture leaves `{a}` absent: set every typed field"
            ));
        }
    }
    let mut all = Vec::new();
    leaves(&fx.body, &mut Vec::new(), &mut all);
    let mut seen_required = std::collections::BTreeSet::new();
    for path in all {
        let p = norm(&path);
        if p == "code" || p == "msg" || fx.ignored.contains(&p) {
            continue;
        }
        let required = fx.required.contains(&p);
        if required {
            seen_required.insert(p.clone());
        }
        let is_member = matches!(path.last(), Some(Seg::Key(_)));
        let mut cases: Vec<(&str, Option<Value>)> = vec![
            ("null", Some(Value::Null)),
            ("\"\"", Some(json!(""))),
            ("\"-\"", Some(json!("-"))),
        ];
        if is_member {
            cases.push(("removed", None));
            cases.push(("junk", Some(json!({"junk": [1]}))));
        }
        for (what, value) in cases {
            let junk = what == "junk";
            let body = with(&fx.body, &path, value);
            match (decode(entry, fx.status, &body), required) {
                (Ok((out, unreadable)), false) => {
                    let d = diff(&base, &out);
                    if d > 1 {
                        problems.push(format!("{name}: {p} {what}: {d} output values changed"));
                    }
                    let paths: Vec<String> =
                        unreadable.iter().map(|u| norm_text(&u.path)).collect();
                    let want: Vec<String> = if junk { vec![p.clone()] } else { Vec::new() };
                    if paths != want {
                        problems.push(format!(
                            "{name}: {p} {what}: reported unreadable {paths:?}, expected {want:?}"
                        ));
                    }
                }
                (Ok(_), true) => {
                    problems.push(format!("{name}: {p} is required but {what} decodes"));
                }
                (
                    Err(Error::Decode {
                        path: at, message, ..
                    }),
                    true,
                ) => {
                    // A removed member is reported at its parent, naming it; a positional
                    // row is read whole, so its columns are reported at the row.
                    let parent = norm(&path[..path.len() - 1]);
                    let ok = norm_text(&at) == p
                        || (is_column(&path) && norm_text(&at) == parent)
                        || (what == "removed"
                            && norm_text(&at).trim_matches('.') == parent
                            && message.contains("missing field"))
                        || (what == "removed" && at == "." && parent.is_empty());
                    if !ok {
                        problems.push(format!(
                            "{name}: {p} {what}: the error names `{at}` ({message})"
                        ));
                    }
                }
                (Err(e), true) => {
                    problems.push(format!("{name}: {p} {what}: not a decode error: {e}"))
                }
                (Err(e), false) => {
                    problems.push(format!("{name}: {p} is optional but {what} fails: {e}"))
                }
            }
        }
    }
    for r in &fx.required {
        if !seen_required.contains(r) {
            problems.push(format!("{name}: required `{r}` is not in the body"));
        }
    }
    problems
}

#[test]
fn every_endpoint_survives_every_drift_class_on_every_field() {
    let only = std::env::var("DRIFT_ONLY").unwrap_or_default();
    let mut problems = Vec::new();
    let mut checked = 0;
    for entry in catalog::all().filter(|e| e.meta.name.contains(only.as_str())) {
        match load(entry) {
            Ok(fx) => {
                checked += 1;
                problems.extend(check(entry, &fx));
            }
            Err(e) => problems.push(e),
        }
    }
    assert!(
        checked > 0 || !problems.is_empty(),
        "no endpoint matched {only:?}"
    );
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Every fixture that loads, with its optional leaves (paths the rule lets be absent).
/// A fixture with its endpoint and its optional leaves.
type Case = (&'static CatalogEntry, Fixture, Vec<Vec<Seg>>);

fn corpus() -> &'static Vec<Case> {
    static CORPUS: std::sync::OnceLock<Vec<Case>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(|| {
        catalog::all()
            .filter_map(|e| {
                let fx = load(e).ok()?;
                let mut all = Vec::new();
                leaves(&fx.body, &mut Vec::new(), &mut all);
                let optional = all
                    .into_iter()
                    .filter(|p| {
                        let n = norm(p);
                        n != "code"
                            && n != "msg"
                            && !fx.required.contains(&n)
                            && !fx.ignored.contains(&n)
                    })
                    .collect();
                Some((e, fx, optional))
            })
            .collect()
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Several optional fields of one answer drifting at once: the answer decodes, only those
    /// fields change, and exactly the junk ones are reported, at their paths.
    #[test]
    fn any_optional_fields_drifting_at_once_still_decode(
        pick in 0usize..1000,
        changes in proptest::collection::vec((0usize..1000, 0u8..8), 1..8),
    ) {
        let corpus = corpus();
        proptest::prop_assume!(!corpus.is_empty());
        let (entry, fx, optional) = &corpus[pick % corpus.len()];
        proptest::prop_assume!(!optional.is_empty());
        // One change per leaf (the last one drawn wins).
        let mut chosen: std::collections::BTreeMap<usize, u8> = std::collections::BTreeMap::new();
        for (leaf, kind) in changes {
            chosen.insert(leaf % optional.len(), kind);
        }
        let mut body = fx.body.clone();
        let mut junk = std::collections::BTreeSet::new();
        for (&i, &kind) in &chosen {
            let path = &optional[i];
            let member = matches!(path.last(), Some(Seg::Key(_)));
            let value = match kind {
                0 => Some(Value::Null),
                1 => Some(json!("")),
                2 => Some(json!("-")),
                3 => Some(json!("--")),
                4 => Some(json!(" ")),
                5 => Some(json!("N/A")),
                6 if member => None,
                7 if member => {
                    junk.insert(norm(path));
                    Some(json!({"junk": true}))
                }
                _ => Some(Value::Null),
            };
            body = with(&body, path, value);
        }
        let (base, _) = decode(entry, fx.status, &fx.body).expect("the fixture decodes");
        let decoded = decode(entry, fx.status, &body);
        let (out, unreadable) = match decoded {
            Ok(v) => v,
            Err(e) => panic!("{}: {e}", entry.meta.name),
        };
        proptest::prop_assert!(diff(&base, &out) <= chosen.len(), "{}", entry.meta.name);
        let reported: std::collections::BTreeSet<String> =
            unreadable.iter().map(|u| norm_text(&u.path)).collect();
        proptest::prop_assert_eq!(reported, junk, "{}", entry.meta.name);
    }
}
