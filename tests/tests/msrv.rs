//! The workspace's `rust-version` is true for the committed lockfile: no locked dependency of a
//! publishable crate declares a higher `rust-version`.
//!
//! Only one toolchain is installed where this runs, so the minimum version is not compiled
//! here; what is checked is every package's own declaration, read from
//! `cargo metadata --format-version 1 --locked --all-features` (all features, so the TLS
//! provider and root-store options count; all platforms, as the lockfile holds them). The
//! normal and build dependencies of the publishable crates must fit (what a user builds); the
//! dev-dependencies of every workspace member must fit too (what `cargo test` builds), and
//! are reported apart so that a failure says which side moved.
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// The crates a user depends on or installs (`publish` not `false`).
const PUBLISHABLE: [&str; 5] = [
    "digifinex-core",
    "digifinex-ureq",
    "digifinex-hyper",
    "digifinex-sim",
    "digifinex-cli",
];

/// `1.88` or `1.88.0` as comparable numbers (a missing patch is 0).
fn version(text: &str) -> Vec<u64> {
    let mut parts: Vec<u64> = text.split('.').map(|p| p.parse().unwrap_or(0)).collect();
    parts.resize(3, 0);
    parts
}

/// A resolved dependency: its package id and its kinds (`None` for normal, `dev`, `build`).
type Edge = (String, Vec<Option<String>>);

struct Graph {
    /// Package id -> (name, version, rust-version).
    packages: BTreeMap<String, (String, String, Option<String>)>,
    /// Package id -> its resolved dependencies.
    deps: BTreeMap<String, Vec<Edge>>,
    members: BTreeSet<String>,
}

fn metadata() -> Graph {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--all-features",
        ])
        .arg("--manifest-path")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata --locked failed (is Cargo.lock up to date?):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let str_of = |v: &Value| v.as_str().map(str::to_owned);
    let mut packages = BTreeMap::new();
    for p in meta["packages"].as_array().expect("packages") {
        packages.insert(
            str_of(&p["id"]).expect("id"),
            (
                str_of(&p["name"]).expect("name"),
                str_of(&p["version"]).expect("version"),
                str_of(&p["rust_version"]),
            ),
        );
    }
    let mut deps = BTreeMap::new();
    for n in meta["resolve"]["nodes"].as_array().expect("resolve") {
        let list = n["deps"]
            .as_array()
            .expect("deps")
            .iter()
            .map(|d| {
                let kinds = d["dep_kinds"]
                    .as_array()
                    .expect("dep_kinds")
                    .iter()
                    .map(|k| str_of(&k["kind"]))
                    .collect();
                (str_of(&d["pkg"]).expect("pkg"), kinds)
            })
            .collect();
        deps.insert(str_of(&n["id"]).expect("node id"), list);
    }
    let members = meta["workspace_members"]
        .as_array()
        .expect("members")
        .iter()
        .filter_map(str_of)
        .collect();
    Graph {
        packages,
        deps,
        members,
    }
}

impl Graph {
    fn id_of(&self, name: &str) -> String {
        self.members
            .iter()
            .find(|id| self.packages[*id].0 == name)
            .unwrap_or_else(|| panic!("{name} is a workspace member"))
            .clone()
    }

    /// Every package reached from `roots` by a first edge of `first` kinds, then by normal and
    /// build edges (a dependency's own dev-dependencies are not built).
    fn closure(&self, roots: &[String], first: &[Option<&str>]) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<(String, bool)> = roots.iter().map(|r| (r.clone(), true)).collect();
        while let Some((id, is_root)) = stack.pop() {
            let allowed: &[Option<&str>] = if is_root {
                first
            } else {
                &[None, Some("build")]
            };
            for (dep, kinds) in &self.deps[&id] {
                // A path dependency on another member counts with its own dependencies.
                let follow = kinds.iter().any(|k| allowed.contains(&k.as_deref()));
                if follow && seen.insert(dep.clone()) {
                    stack.push((dep.clone(), false));
                }
            }
        }
        seen.retain(|id| !self.members.contains(id));
        seen
    }

    /// The packages of `ids` whose rust-version is above `limit`, as `name version (rust-version)`.
    fn above(&self, ids: &BTreeSet<String>, limit: &str) -> Vec<String> {
        let mut out: Vec<String> = ids
            .iter()
            .filter_map(|id| {
                let (name, ver, rv) = &self.packages[id];
                let rv = rv.as_deref()?;
                (version(rv) > version(limit)).then(|| format!("{name} {ver} (rust-version {rv})"))
            })
            .collect();
        out.sort();
        out
    }

    /// The highest rust-version declared in `ids`, with the packages declaring it.
    fn highest(&self, ids: &BTreeSet<String>) -> String {
        let mut best: Option<(Vec<u64>, String)> = None;
        for id in ids {
            let (name, ver, rv) = &self.packages[id];
            if let Some(rv) = rv {
                let v = version(rv);
                match &mut best {
                    Some((b, names)) if *b == v => names.push_str(&format!(", {name} {ver}")),
                    Some((b, _)) if *b > v => {}
                    _ => best = Some((v, format!("{rv}: {name} {ver}"))),
                }
            }
        }
        best.map_or_else(|| "none declared".to_owned(), |(_, s)| s)
    }
}

#[test]
fn locked_dependencies_fit_the_workspace_rust_version() {
    let graph = metadata();
    let core = graph.id_of("digifinex-core");
    let declared = graph.packages[&core]
        .2
        .clone()
        .expect("the workspace declares a rust-version");
    for name in PUBLISHABLE {
        let id = graph.id_of(name);
        assert_eq!(
            graph.packages[&id].2.as_deref(),
            Some(declared.as_str()),
            "{name} inherits the workspace rust-version"
        );
    }

    let roots: Vec<String> = PUBLISHABLE.iter().map(|n| graph.id_of(n)).collect();
    let normal = graph.closure(&roots, &[None, Some("build")]);
    let members: Vec<String> = graph.members.iter().cloned().collect();
    let dev = graph.closure(&members, &[Some("dev")]);
    println!(
        "workspace rust-version {declared}; highest among the publishable crates' dependencies: {}; \
         among the dev-dependencies: {}",
        graph.highest(&normal),
        graph.highest(&dev)
    );

    let too_new = graph.above(&normal, &declared);
    assert!(
        too_new.is_empty(),
        "locked dependencies of the published crates need a newer Rust than the workspace's \
         rust-version {declared}: raise `rust-version` in Cargo.toml (and the README) or lock \
         older versions (`cargo update -p NAME --precise VERSION`):\n  {}",
        too_new.join("\n  ")
    );
    let dev_too_new = graph.above(&dev, &declared);
    assert!(
        dev_too_new.is_empty(),
        "locked dev-dependencies (tests, benches, examples) need a newer Rust than the workspace's \
         rust-version {declared}:\n  {}",
        dev_too_new.join("\n  ")
    );
}

#[test]
fn version_comparison() {
    assert!(version("1.88") == version("1.88.0"));
    assert!(version("1.88.1") > version("1.88"));
    assert!(version("1.100") > version("1.88"));
    assert!(version("1.87.0") < version("1.88"));
}
