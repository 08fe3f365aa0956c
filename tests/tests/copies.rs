//! Files kept as copies so that every published package contains what it needs (a package
//! cannot reach outside its directory): the license texts in each publishable crate, and the
//! test and bench support the two transport crates share. The copies must stay identical.
use std::fs;
use std::path::{Path, PathBuf};

const PUBLISHABLE: [&str; 5] = ["core", "transport-ureq", "transport-hyper", "sim", "cli"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn same(original: &str, copy: &str) {
    let (a, b) = (root().join(original), root().join(copy));
    assert!(
        read(&a) == read(&b),
        "{copy} differs from {original}: copy one over the other (they must stay identical)"
    );
}

#[test]
fn every_publishable_crate_carries_both_licenses() {
    for file in ["LICENSE-MIT", "LICENSE-APACHE"] {
        for krate in PUBLISHABLE {
            same(file, &format!("{krate}/{file}"));
        }
    }
    let mit = String::from_utf8(read(&root().join("LICENSE-MIT"))).expect("text");
    assert!(mit.starts_with("Copyright (c) The digifinex-rs contributors\n"));
    let apache = String::from_utf8(read(&root().join("LICENSE-APACHE"))).expect("text");
    assert!(apache.contains("Version 2.0, January 2004"));
}

#[test]
fn the_transports_share_identical_test_support() {
    same(
        "transport-ureq/tests/support/mod.rs",
        "transport-hyper/tests/support/mod.rs",
    );
    same(
        "transport-ureq/benches/support/mod.rs",
        "transport-hyper/benches/support/mod.rs",
    );
    let names = |dir: &str| {
        let mut v: Vec<String> = fs::read_dir(root().join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let files = names("transport-ureq/tests/data");
    assert_eq!(files, names("transport-hyper/tests/data"));
    for f in files {
        same(
            &format!("transport-ureq/tests/data/{f}"),
            &format!("transport-hyper/tests/data/{f}"),
        );
    }
}
