//! Regenerates the seed corpora (`corpus/TARGET/seed-*`) from the test fixtures:
//!
//! * the real captures (`core/tests/data/real/*.json`), trimmed to a few elements per array;
//! * the bodies written by hand in `core/tests/*.rs` (`decode::<T>(r#"..."#)`,
//!   `decode_swap::<T>(..)`, `decode_status::<T>(N, ..)`, also through a `let body = ..;`), and
//!   the parameter bodies of `build_from_json(METHOD, PATH, ..)`;
//! * per catalog entry: envelopes of each shape (success, error code, HTTP errors), and a minimal
//!   and a maximal valid parameter set found by probing the entry's builder (the validation
//!   error names the missing or wrong field; candidates are tried until it builds);
//! * decimal texts from all of the above plus the documented edge cases.
//!
//! Run with `cargo test -p digifinex-fuzz --test seeds -- --ignored`. Files merged in by
//! libFuzzer (hash names) are kept; `seed-*` files are rewritten.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use digifinex_core::catalog::{self, ParamMap};
use digifinex_core::{Config, Credentials, Error, Family, Method, TimestampMillis};
use digifinex_fuzz::{encode, entries};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

const NOW: TimestampMillis = TimestampMillis(1_700_000_000_000);
/// Largest seed kept (libFuzzer's default `-max_len` is 4096).
const MAX_SEED: usize = 4000;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Seeds by target: each input and the kind its file name carries after `seed-` (`""`, or
/// `"extreme-"` for the extreme-value builds).
#[derive(Default)]
struct Seeds(BTreeMap<&'static str, BTreeMap<Vec<u8>, &'static str>>);

impl Seeds {
    fn add(&mut self, target: &'static str, data: Vec<u8>) {
        self.add_kind(target, "", data);
    }

    fn add_kind(&mut self, target: &'static str, kind: &'static str, data: Vec<u8>) {
        if data.len() <= MAX_SEED {
            self.0
                .entry(target)
                .or_default()
                .entry(data)
                .or_insert(kind);
        }
    }
}

/// Keeps at most three elements of every array (recursively), keeping every token's text.
fn trim_json(text: &str) -> String {
    let t = text.trim_start();
    if t.starts_with('[') {
        let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(text) else {
            return text.to_owned();
        };
        let inner: Vec<String> = items.iter().take(3).map(|v| trim_json(v.get())).collect();
        format!("[{}]", inner.join(","))
    } else if t.starts_with('{') {
        let Ok(map) = serde_json::from_str::<BTreeMap<String, &RawValue>>(text) else {
            return text.to_owned();
        };
        let inner: Vec<String> = map
            .iter()
            .map(|(k, v)| {
                format!(
                    "{}:{}",
                    serde_json::to_string(k).expect("key"),
                    trim_json(v.get())
                )
            })
            .collect();
        format!("{{{}}}", inner.join(","))
    } else {
        text.to_owned()
    }
}

/// Every number token and every string that looks numeric in a JSON text.
fn numbers(text: &str, out: &mut BTreeSet<String>) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            let start = i + 1;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            let s = &text[start..i.min(text.len())];
            if !s.is_empty()
                && s.len() < 48
                && s.bytes()
                    .all(|c| c.is_ascii_digit() || b".-+eE ".contains(&c))
                && s.bytes().any(|c| c.is_ascii_digit())
            {
                out.insert(s.to_owned());
            }
            i += 1;
        } else if c == b'-' || c.is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_digit() || b".-+eE".contains(&b[i])) {
                i += 1;
            }
            if i - start < 48 {
                out.insert(text[start..i].to_owned());
            }
        } else {
            i += 1;
        }
    }
}

/// A Rust string literal starting at `s` (`r#"..."#`, `r"..."` or `"..."`), unescaped.
fn literal(s: &str) -> Option<String> {
    if let Some(rest) = s.strip_prefix("r#\"") {
        return rest.find("\"#").map(|e| rest[..e].to_owned());
    }
    if let Some(rest) = s.strip_prefix("r\"") {
        return rest.find('"').map(|e| rest[..e].to_owned());
    }
    let rest = s.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                '\n' => {
                    for c in chars.by_ref() {
                        if !c.is_whitespace() {
                            out.push(c);
                            break;
                        }
                    }
                }
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// The value of `let NAME = <literal>` last bound before `at`.
fn binding(src: &str, at: usize, name: &str) -> Option<String> {
    let pat = format!("let {name} = ");
    let pos = src[..at].rfind(&pat)?;
    literal(src[pos + pat.len()..].trim_start())
}

/// The argument text at `s`: a literal, `&real("file")`, or a `let` binding.
fn argument(src: &str, at: usize, real: &Path) -> Option<String> {
    let s = src[at..].trim_start();
    let s = s.strip_prefix('&').unwrap_or(s);
    if let Some(name) = s.strip_prefix("real(") {
        let file = literal(name)?;
        return std::fs::read_to_string(real.join(file)).ok();
    }
    if let Some(v) = literal(s) {
        return Some(v);
    }
    let ident: String = s
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if ident.is_empty() {
        return None;
    }
    binding(src, at, &ident)
}

/// The catalog entry of the request type named `ty` (last path segment), preferring `family`.
fn entry_of_type(ty: &str, family: Option<Family>) -> Option<u8> {
    let suffix = format!("::{ty}");
    let found: Vec<usize> = entries()
        .iter()
        .enumerate()
        .filter(|(_, e)| (e.request_type)().ends_with(&suffix))
        .filter(|(_, e)| family.is_none_or(|f| e.meta.family == f))
        .map(|(i, _)| i)
        .collect();
    match found.as_slice() {
        [i] => u8::try_from(*i).ok(),
        _ => None,
    }
}

/// Bodies decoded in the core's tests: `(entry, status, body)`.
fn test_bodies() -> Vec<(u8, u16, String)> {
    let tests = root().join("../core/tests");
    let real = tests.join("data/real");
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&tests)
        .expect("core/tests")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    for file in files {
        let src = std::fs::read_to_string(&file).expect("test source");
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let family = if stem.starts_with("spot") {
            Some(Family::Spot)
        } else if stem.starts_with("swap") {
            Some(Family::Swap)
        } else {
            None
        };
        for f in ["decode::<", "decode_swap::<", "decode_status::<"] {
            let mut from = 0;
            while let Some(pos) = src[from..].find(f) {
                let start = from + pos + f.len();
                from = start;
                // A call, not a longer identifier ending the same way.
                let before = src[..start - f.len()].chars().last().unwrap_or(' ');
                if before.is_alphanumeric() || before == '_' {
                    continue;
                }
                let Some(close) = src[start..].find(">(") else {
                    continue;
                };
                let ty = &src[start..start + close];
                let mut at = start + close + 2;
                let mut status = 200;
                if f == "decode_status::<" {
                    let digits: String = src[at..]
                        .trim_start()
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect();
                    let Ok(s) = digits.parse() else { continue };
                    status = s;
                    let Some(comma) = src[at..].find(',') else {
                        continue;
                    };
                    at += comma + 1;
                }
                let Some(entry) = entry_of_type(ty, family) else {
                    continue;
                };
                if let Some(body) = argument(&src, at, &real) {
                    out.push((entry, status, body));
                }
            }
        }
    }
    out
}

/// `(entry, path variables, JSON body)` from `build_from_json(METHOD, PATH, BODY)` calls.
/// A parameter set found in a test: entry, path variables as text parameters, JSON body.
type BuildCase = (u8, Vec<(String, String)>, String);

fn test_build_bodies() -> Vec<BuildCase> {
    let tests = root().join("../core/tests");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&tests).expect("core/tests") {
        let path = e.expect("entry").path();
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let src = std::fs::read_to_string(&path).expect("source");
        let f = "build_from_json(";
        let mut from = 0;
        while let Some(pos) = src[from..].find(f) {
            let at = from + pos + f.len();
            from = at;
            let args = src[at..].trim_start();
            let Some(method) = literal(args) else {
                continue;
            };
            let Some(rest) = args.split_once(',').map(|(_, r)| r.trim_start()) else {
                continue;
            };
            let Some(path) = literal(rest) else { continue };
            let Some(rest) = rest.split_once(',').map(|(_, r)| r) else {
                continue;
            };
            let offset = src.len() - rest.len();
            let Some(json) = argument(&src, offset, Path::new(".")) else {
                continue;
            };
            let Some((entry, vars)) = catalog::find(&method, &path) else {
                continue;
            };
            let Some(i) = encode::entry_index(entry.meta.name) else {
                continue;
            };
            out.push((i, vars, json));
        }
    }
    out
}

/// Candidate wire values for a parameter name, most plausible first.
fn candidates(name: &str) -> Vec<String> {
    let specific: &[&str] = match name {
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
    let mut v: Vec<String> = specific.iter().map(|s| (*s).to_owned()).collect();
    for g in generic {
        if !v.iter().any(|x| x == g) {
            v.push(g.to_owned());
        }
    }
    v
}

/// All parameter names the core reads (scanned from `take_*("name")` calls in core/src).
fn param_names() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![root().join("../core/src")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("core/src") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let src = std::fs::read_to_string(&p).expect("source");
            for (i, _) in src.match_indices("take_") {
                let rest = &src[i..];
                let Some(open) = rest.find("(\"") else {
                    continue;
                };
                if open > 40 || rest[..open].contains(['\n', ' ', ';']) {
                    continue;
                }
                let name: String = rest[open + 2..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
    }
    out
}

/// A parameter set under construction: text parameters, or (array mode) the fields of the one
/// element of a JSON array body.
#[derive(Clone, Default)]
struct Probe {
    text: Vec<(String, String)>,
    element: Option<Vec<(String, String)>>,
}

impl Probe {
    fn json(&self) -> Option<String> {
        self.element.as_ref().map(|fields| {
            let obj: serde_json::Map<String, serde_json::Value> = fields
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                .collect();
            format!("[{}]", serde_json::Value::Object(obj))
        })
    }

    fn build(&self, entry: &catalog::CatalogEntry) -> Result<http::Request<Vec<u8>>, Error> {
        let mut p = ParamMap::new();
        for (k, v) in &self.text {
            p.insert_text(k.clone(), v.clone());
        }
        if let Some(json) = self.json() {
            p.insert_json(&json)?;
        }
        (entry.build)(
            p,
            &Config::default(),
            Some(&Credentials::new("test-key", "test-secret")),
            NOW,
        )
    }

    fn fields(&mut self, element: bool) -> &mut Vec<(String, String)> {
        if element {
            self.element.get_or_insert_with(Vec::new)
        } else {
            &mut self.text
        }
    }
}

/// Finds a parameter set the entry builds with, starting from `probe`.
fn solve(entry: &catalog::CatalogEntry, mut probe: Probe) -> Option<Probe> {
    let mut tried: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..60 {
        let err = match probe.build(entry) {
            Ok(_) => return Some(probe),
            Err(Error::Validation { field, reason, .. }) => (field.into_owned(), reason),
            Err(_) => return None,
        };
        let (field, reason) = err;
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
        let key = format!("{element}/{name}");
        let n = tried.entry(key).or_insert(0);
        let cands = candidates(&name);
        let value = cands.get(*n)?;
        *n += 1;
        let fields = probe.fields(element);
        fields.retain(|(k, _)| *k != name);
        fields.push((name, value.clone()));
    }
    None
}

/// `min` with every optional parameter the builder accepts on top of it (any name of `names`,
/// the first candidate value that builds).
fn maximal(entry: &catalog::CatalogEntry, min: &Probe, names: &BTreeSet<String>) -> Probe {
    let mut max = min.clone();
    for name in names {
        let element = max.element.is_some() && entry.meta.family == Family::Swap;
        if min.clone().fields(element).iter().any(|(k, _)| k == name) {
            continue;
        }
        for value in candidates(name) {
            let mut p = max.clone();
            p.fields(element).push((name.clone(), value));
            if p.build(entry).is_ok() {
                max = p;
                break;
            }
        }
    }
    max
}

/// Whether a parameter value is a plain number (an integer or decimal parameter, or a numeric
/// code or id).
fn is_numeric(v: &str) -> bool {
    v.bytes().any(|b| b.is_ascii_digit())
        && v.bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
}

/// Builds from extreme integer and decimal values (issue 12), written as `seed-extreme-*`: per
/// entry with numeric parameters, its maximal set with each numeric value replaced by an
/// extreme text (`digifinex_fuzz::EXTREMES`, rotating), and the same with each numeric text
/// parameter as an `EXTREME_MARK` selector (one mutated byte reaches every extreme) at an
/// extreme build time and receive window (flags bit 7); and the kline range that overflowed
/// (`start_time=-1 end_time=i64::MAX`).
fn extreme_build_seeds(seeds: &mut Seeds) {
    let names = param_names();
    let extremes = digifinex_fuzz::EXTREMES;
    let mut rotate = 0usize;
    for (i, entry) in entries().iter().enumerate() {
        let i = u8::try_from(i).expect("fewer than 256 entries");
        let Some(min) = solve(entry, Probe::default()) else {
            continue;
        };
        let max = maximal(entry, &min, &names);
        let mut literal = max.clone();
        let mut marked = max.clone();
        let mut any = false;
        let fields = literal
            .text
            .iter_mut()
            .chain(literal.element.iter_mut().flatten());
        for (_, v) in fields.filter(|(_, v)| is_numeric(v)) {
            *v = extremes[rotate % extremes.len()].to_owned();
            rotate += 1;
            any = true;
        }
        for (_, v) in marked.text.iter_mut().filter(|(_, v)| is_numeric(v)) {
            let sel = u8::try_from(rotate % extremes.len()).expect("a small table");
            *v = String::from_utf8(vec![digifinex_fuzz::EXTREME_MARK, sel]).expect("ASCII");
            rotate += 1;
        }
        if !any {
            continue;
        }
        seeds.add_kind(
            "catalog_build",
            "extreme-",
            encode::catalog_build(i, 0, &literal.text, literal.json().as_deref()),
        );
        // Bit 7: extreme build time (bits 3-4) and receive window (bit 2).
        let flags = 0x84 | ((i & 3) << 3);
        seeds.add_kind(
            "catalog_build",
            "extreme-",
            encode::catalog_build(i, flags, &marked.text, marked.json().as_deref()),
        );
    }
    let (kline, _) = catalog::find("GET", "/v3/kline").expect("kline");
    let kline = encode::entry_index(kline.meta.name).expect("index");
    let text: Vec<(String, String)> = [
        ("symbol", "btc_usdt"),
        ("period", "1"),
        ("start_time", "-1"),
        ("end_time", "9223372036854775807"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    seeds.add_kind(
        "catalog_build",
        "extreme-",
        encode::catalog_build(kline, 0, &text, None),
    );
}

fn build_seeds(seeds: &mut Seeds) {
    let names = param_names();
    let mut unsolved = 0;
    for (i, entry) in entries().iter().enumerate() {
        let i = u8::try_from(i).expect("fewer than 256 entries");
        let Some(min) = solve(entry, Probe::default()) else {
            unsolved += 1;
            eprintln!("no valid parameters found for {}", entry.meta.name);
            seeds.add("catalog_build", encode::catalog_build(i, 0, &[], None));
            continue;
        };
        let max = maximal(entry, &min, &names);
        for p in [&min, &max] {
            let json = p.json();
            for flags in [0u8, 0b0110_0110, 0b0011_1001] {
                seeds.add(
                    "catalog_build",
                    encode::catalog_build(i, flags, &p.text, json.as_deref()),
                );
            }
        }
        // The same set as a JSON object body (how the CLI's `--json` passes parameters).
        if max.element.is_none() && !max.text.is_empty() {
            let obj: serde_json::Map<String, serde_json::Value> = max
                .text
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                .collect();
            let json = serde_json::Value::Object(obj).to_string();
            seeds.add(
                "catalog_build",
                encode::catalog_build(i, 0, &[], Some(&json)),
            );
        }
    }
    eprintln!("{unsolved} entries without valid parameters");
    for (i, vars, json) in test_build_bodies() {
        seeds.add(
            "catalog_build",
            encode::catalog_build(i, 0, &vars, Some(&json)),
        );
    }
}

fn decode_seeds(seeds: &mut Seeds, decimals: &mut BTreeSet<String>) {
    let mut bodies = test_bodies();
    eprintln!("{} bodies from core/tests/*.rs", bodies.len());
    // Real captures, by file name.
    let dir = root().join("../core/tests/data/real");
    for e in std::fs::read_dir(&dir).expect("fixtures") {
        let p = e.expect("entry").path();
        let Some(stem) = p.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if p.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let route = if stem.starts_with("v3_kline") {
            "/v3/kline"
        } else if stem.starts_with("v3_spot_symbols") {
            "/v3/spot/symbols"
        } else {
            continue;
        };
        let (entry, _) = catalog::find("GET", route).expect("fixture route");
        let i = encode::entry_index(entry.meta.name).expect("index");
        let body = std::fs::read_to_string(&p).expect("fixture");
        bodies.push((i, 200, body));
    }
    for (i, status, body) in bodies {
        let body = if body.len() > 1500 {
            trim_json(&body)
        } else {
            body
        };
        numbers(&body, decimals);
        let name = entries()[usize::from(i)].meta.name;
        seeds.add(
            "catalog_decode",
            encode::catalog_decode(i, status, 0, body.as_bytes()),
        );
        if let Some((target, data)) = encode::hot_decode(name, status, body.as_bytes()) {
            seeds.add(target, data);
        }
        if let Some(data) = encode::reader(name, body.as_bytes()) {
            seeds.add("reader", data);
        }
    }
    // Envelopes of each shape for every entry.
    for (i, entry) in entries().iter().enumerate() {
        let i = u8::try_from(i).expect("index");
        let ok = entry.meta.success_code;
        let mut shapes: Vec<(u16, u8, String)> = vec![
            (200, 0, format!(r#"{{"code":{ok}}}"#)),
            (
                200,
                0,
                r#"{"code":10001,"msg":"wrong parameter"}"#.to_owned(),
            ),
            (400, 0, r#"{"code":"20002","message":"x"}"#.to_owned()),
            (429, 1, String::new()),
            (403, 0, "Forbidden".to_owned()),
            (502, 0, "<html>Bad gateway</html>".to_owned()),
        ];
        if entry.meta.family == Family::Swap {
            shapes.push((200, 0, format!(r#"{{"code":{ok},"data":null}}"#)));
            shapes.push((200, 0, format!(r#"{{"code":{ok},"data":[]}}"#)));
        }
        for (status, headers, body) in shapes {
            seeds.add(
                "catalog_decode",
                encode::catalog_decode(i, status, headers, body.as_bytes()),
            );
            if entry.meta.method == Method::Get || status != 200 {
                if let Some((target, data)) =
                    encode::hot_decode(entry.meta.name, status, body.as_bytes())
                {
                    seeds.add(target, data);
                }
                if let Some(data) = encode::reader(entry.meta.name, body.as_bytes()) {
                    seeds.add("reader", data);
                }
            }
        }
    }
}

/// Writes the seeds, replacing the files of their targets whose names `replace` selects.
fn write(seeds: &Seeds, replace: fn(&str) -> bool) {
    for (target, set) in &seeds.0 {
        let dir = root().join("corpus").join(target);
        std::fs::create_dir_all(&dir).expect("corpus dir");
        for e in std::fs::read_dir(&dir).expect("corpus dir") {
            let p = e.expect("entry").path();
            if p.file_name().and_then(|n| n.to_str()).is_some_and(replace) {
                std::fs::remove_file(&p).expect("remove old seed");
            }
        }
        let (_, f) = digifinex_fuzz::TARGETS
            .iter()
            .find(|(n, _)| n == target)
            .expect("target");
        for (data, kind) in set {
            f(data);
            let hash = hex::encode(&Sha256::digest(data)[..8]);
            std::fs::write(dir.join(format!("seed-{kind}{hash}")), data).expect("write seed");
        }
        eprintln!("{target}: {} seeds", set.len());
    }
}

#[test]
#[ignore = "rewrites corpus/*/seed-*; run on demand"]
fn regenerate_seed_corpora() {
    let mut seeds = Seeds::default();
    let mut decimals: BTreeSet<String> = [
        "0.01",
        "1e-07",
        "1E-7",
        "2.5E+3",
        "-12.340",
        "+7",
        ".5",
        "5.",
        " 42 ",
        "\t-0.0\n",
        "79228162514264337593543950335",
        "79228162514264337593543950336",
        "-79228162514264337593543950335",
        "0.1234567890123456789012345678",
        "0.00000000000000000000000000001",
        "1.000000000000000000000000000000",
        "0e-50",
        "0E+99999999999999999999",
        "-0",
        "1e-29",
        "1e28",
        "1e29",
        "25.999999999999996",
        "1e999999999999999999999",
        "123456789012345678",
        "1234567890123456789",
        "12345678901234567890123456789012345678",
        "0.000000000000000000000000000000000000001e39",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "8.0",
        "1,5",
        "NaN",
        "",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    decode_seeds(&mut seeds, &mut decimals);
    build_seeds(&mut seeds);
    for d in decimals {
        seeds.add("decimal", d.into_bytes());
    }
    // `seed-extreme-*` are `regenerate_extreme_seeds`'s (the two may run at once).
    write(&seeds, |n| {
        n.starts_with("seed-") && !n.starts_with("seed-extreme-")
    });
}

#[test]
#[ignore = "rewrites corpus/catalog_build/seed-extreme-*; run on demand"]
fn regenerate_extreme_seeds() {
    let mut seeds = Seeds::default();
    extreme_build_seeds(&mut seeds);
    write(&seeds, |n| n.starts_with("seed-extreme-"));
}
