//! `describe METHOD PATH` and `endpoints --verbose`: an endpoint's parameters, request and
//! response types and a sample command line, all from the catalog entry (whose parameters come
//! from the endpoint's `request!` declaration, the same one that validates them).

use digifinex_core::catalog::{CatalogEntry, ParamInfo};
use digifinex_core::{Family, Method};

use crate::live::{KEY_VAR, SECRET_VAR};

/// The description of `entry`: its `METHOD PATH` line, what kind of endpoint it is, its types,
/// its parameters in wire order (type, required or not, allowed values and rules, default,
/// meaning) and a sample `digifinex call` line. `vars` are the path variables the user gave
/// (`market=margin` for `/v3/margin/order/new`); the sample uses them, or the first allowed
/// value.
pub(crate) fn render(entry: &CatalogEntry, vars: &[(String, String)]) -> String {
    let meta = &entry.meta;
    let params = (entry.params)();
    let mut out = String::new();
    out.push_str(&format!(
        "{} {}\n",
        meta.method.as_str(),
        meta.display_path()
    ));
    let family = match meta.family {
        Family::Spot => "spot v3",
        _ => "swap v2",
    };
    let auth = if meta.signed {
        format!("signed: needs an API key, --key and --secret or {KEY_VAR} and {SECRET_VAR}")
    } else {
        "public: no API key".to_owned()
    };
    let retry = if meta.idempotent {
        "a read: retried after a network or server failure"
    } else {
        "a write: never retried automatically"
    };
    let weight = meta
        .weight
        .map(|w| format!("; weight {w}"))
        .unwrap_or_default();
    out.push_str(&format!("  {family}; {retry}{weight}\n"));
    out.push_str(&format!("  {auth}\n"));
    out.push_str(&format!(
        "  request type:  {}\n",
        type_name((entry.request_type)())
    ));
    out.push_str(&format!(
        "  response type: {}\n",
        type_name((entry.response_type)())
    ));
    if params.is_empty() {
        out.push_str("  parameters: none\n");
    } else {
        out.push_str(&format!("  parameters ({}):\n", location(entry, &params)));
        let width = params
            .iter()
            .map(|p| p.name.chars().count())
            .max()
            .unwrap_or(0);
        for p in &params {
            let pad = " ".repeat(width.saturating_sub(p.name.chars().count()));
            out.push_str(&format!("    {}{pad}  {}\n", p.name, summary(p)));
            if !p.doc.is_empty() {
                out.push_str(&format!("    {}  {}\n", " ".repeat(width), p.doc));
            }
        }
    }
    out.push_str("  example (add --sim to try it against a local simulator):\n");
    out.push_str(&format!("    {}\n", sample_line(entry, &params, vars)));
    out
}

/// A Rust type's name as a reader writes it (`Vec<..>`, not `alloc::vec::Vec<..>`).
fn type_name(name: &str) -> String {
    name.replace("alloc::vec::Vec", "Vec")
        .replace("alloc::string::String", "String")
}

/// Where the parameters travel.
fn location(entry: &CatalogEntry, params: &[ParamInfo]) -> &'static str {
    match (entry.meta.family, entry.meta.method) {
        (_, Method::Get) => "query string, in this order",
        (Family::Spot, Method::Post) => "form body, in this order",
        (_, Method::Post) if params.iter().any(|p| p.name == "[]") => {
            "a JSON array body, given with --json"
        }
        (_, Method::Post) => "JSON body members, given as KEY=VALUE or with --json",
    }
}

/// One line about a parameter: type; required or not; allowed values; rules; default.
fn summary(p: &ParamInfo) -> String {
    let mut parts = vec![p.type_name.to_string()];
    parts.push(if p.in_path {
        "required, given by the path".to_owned()
    } else if p.required {
        "required".to_owned()
    } else if let Some(when) = &p.required_when {
        format!("required when {when}")
    } else {
        "optional".to_owned()
    });
    if !p.values.is_empty() {
        let values: Vec<String> = p
            .values
            .iter()
            .map(|c| {
                if c.name.is_empty() {
                    c.wire.to_string()
                } else {
                    format!("{} {}", c.wire, c.name)
                }
            })
            .collect();
        parts.push(format!("one of: {}", values.join(", ")));
    }
    parts.extend(p.rules.iter().map(|r| r.to_string()));
    if let Some(d) = &p.default {
        parts.push(format!("default {d}"));
    }
    parts.join("; ")
}

/// `digifinex call METHOD PATH k=v ...`: the parameters every request carries (and those the
/// sample's own values require), with their samples; free text (an id) as its name in upper
/// case. A JSON array body is one `--json` argument.
pub(crate) fn sample_line(
    entry: &CatalogEntry,
    params: &[ParamInfo],
    vars: &[(String, String)],
) -> String {
    let meta = &entry.meta;
    let mut path = meta.display_path();
    for p in params.iter().filter(|p| p.in_path) {
        let given = vars
            .iter()
            .find(|(k, _)| *k == p.name)
            .map(|(_, v)| v.clone());
        let value = given.unwrap_or_else(|| sample(p));
        path = path.replace(&format!("{{{}}}", p.name), &value);
    }
    let mut line = format!("digifinex call {} {path}", meta.method.as_str());
    let wanted = |p: &&ParamInfo| (p.required || p.required_when.is_some()) && !p.in_path;
    let mut element = serde_json::Map::new();
    let array = params.iter().any(|p| p.name == "[]");
    for p in params.iter().filter(wanted) {
        if p.name == "[]" {
            continue;
        }
        let value = placement_sample(meta.name, &p.name)
            .map(str::to_owned)
            .unwrap_or_else(|| sample(p));
        if let Some(member) = p.name.strip_prefix("[].") {
            element.insert(member.to_owned(), json_value(p, &value));
        } else {
            line.push(' ');
            line.push_str(&shell_word(&format!("{}={}", p.name, value)));
        }
    }
    if array {
        let body = serde_json::Value::Array(vec![serde_json::Value::Object(element)]);
        line.push_str(" --json ");
        line.push_str(&shell_word(&body.to_string()));
    }
    line
}

/// The samples of an order placement that differ from the declared ones, so that the sample
/// line passes the market rules `call` checks (on the simulator, and on the venue's btc_usdt):
/// a buy at 1 USDT (far under the market: it rests) of 5 BTC, a value of 5 USDT, above the
/// pair's minimum quote value (2 USDT on the simulator).
fn placement_sample(endpoint: &str, param: &str) -> Option<&'static str> {
    match (endpoint, param) {
        ("spot.order_new", "amount") => Some("5"),
        ("spot.order_batch_new", "list") => Some(r#"[{"type":"buy","price":"1","amount":"5"}]"#),
        _ => None,
    }
}

/// A parameter's sample: the described one, else its name in upper case (`ORDER_ID`).
fn sample(p: &ParamInfo) -> String {
    p.sample()
        .map(str::to_owned)
        .unwrap_or_else(|| p.name.trim_start_matches("[].").to_ascii_uppercase())
}

/// A sample as a JSON member: a number for numeric types, text otherwise.
fn json_value(p: &ParamInfo, sample: &str) -> serde_json::Value {
    let numeric = !matches!(p.type_name.as_ref(), "string" | "word") && p.sample().is_some();
    if numeric {
        if let Ok(n) = sample.parse::<serde_json::Number>() {
            return serde_json::Value::Number(n);
        }
    }
    serde_json::Value::String(sample.to_owned())
}

/// `word` as one shell word: as is when it has no character a shell treats specially, else in
/// single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.,:/=+@%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn shell_words() {
        assert_eq!(shell_word("symbol=btc_usdt"), "symbol=btc_usdt");
        assert_eq!(shell_word(r#"[{"a":1}]"#), r#"'[{"a":1}]'"#);
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
