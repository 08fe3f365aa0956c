//! The simulator's floors (the crate docs, "Layers"): each module imports only from its own
//! floor and the floors below, and no two modules import each other, directly or around a
//! circle. Read from the sources: every `crate::` path in code (comments and test modules left
//! out) names the module it reaches.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The floor of each top-level module, from the bottom.
fn floor(top: &str) -> Option<u8> {
    Some(match top {
        "clock" | "config" | "faults" | "host" | "json" | "num" | "rng" | "market" | "options" => 1,
        "book" | "engine" => 2,
        "drive" => 3,
        "dialect" => 4,
        "exchange" => 5,
        "server" => 6,
        _ => return None,
    })
}

/// Every module (`engine::spot::store`) and its source without comments and test modules.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out);
                continue;
            }
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned();
            let name = rel
                .trim_end_matches(".rs")
                .trim_end_matches("/mod")
                .replace('/', "::");
            if name == "lib" || name == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let text = match text.find("#[cfg(test)]\nmod tests") {
                Some(i) => &text[..i],
                None => &text[..],
            };
            let code: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            out.insert(name, code.join("\n"));
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    walk(&src, &src, &mut out);
    out
}

/// The modules each module reaches through `crate::` paths (itself and its ancestors left out).
fn imports(mods: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph = BTreeMap::new();
    for (name, code) in mods {
        let mut reached = BTreeSet::new();
        for (i, _) in code.match_indices("crate::") {
            let path: String = code[i + 7..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
            let target = (1..=parts.len())
                .rev()
                .map(|k| parts[..k].join("::"))
                .find(|m| mods.contains_key(m) || floor(m).is_some());
            if let Some(t) = target {
                let ancestor = name.starts_with(&format!("{t}::"));
                if t != *name && !ancestor {
                    reached.insert(t);
                }
            }
        }
        graph.insert(name.clone(), reached);
    }
    graph
}

#[test]
fn each_floor_imports_only_the_floors_below() {
    let mods = modules();
    assert!(mods.len() > 50, "found {} modules", mods.len());
    let mut wrong = Vec::new();
    for (name, reached) in imports(&mods) {
        let top = |m: &str| m.split("::").next().unwrap_or_default().to_owned();
        let own = floor(&top(&name)).unwrap_or_else(|| panic!("{name} has no floor"));
        for t in reached {
            let theirs = floor(&top(&t)).unwrap_or_else(|| panic!("{t} has no floor"));
            if theirs > own {
                wrong.push(format!("{name} (floor {own}) imports {t} (floor {theirs})"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn no_two_modules_import_each_other_around_a_circle() {
    let graph = imports(&modules());
    // A circle exists when a module reaches itself.
    let mut circles = Vec::new();
    for start in graph.keys() {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&String> = graph[start].iter().collect();
        while let Some(m) = todo.pop() {
            if m == start {
                circles.push(start.clone());
                break;
            }
            if seen.insert(m) {
                todo.extend(graph.get(m).into_iter().flatten());
            }
        }
    }
    assert!(
        circles.is_empty(),
        "modules on an import circle: {circles:?}"
    );
}
