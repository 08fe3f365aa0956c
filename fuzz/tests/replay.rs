//! Replays every committed corpus file (`corpus/TARGET/*`) and every regression input
//! (`regressions/TARGET/*`) through the same target functions libFuzzer runs, as an ordinary
//! test: a crash once found can never come back unnoticed.

use std::path::Path;

fn replay_dir(target: &str, f: fn(&[u8]), dir: &Path) -> usize {
    let Ok(read) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut files: Vec<_> = read
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for path in &files {
        let data = std::fs::read(path).expect("readable input");
        let outcome = std::panic::catch_unwind(|| f(&data));
        assert!(
            outcome.is_ok(),
            "{target}: input {} fails its properties (see the panic above)",
            path.display()
        );
    }
    files.len()
}

fn replay(target: &str) {
    let (_, f) = digifinex_fuzz::TARGETS
        .iter()
        .find(|(n, _)| *n == target)
        .expect("known target");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = replay_dir(target, *f, &root.join("corpus").join(target));
    let regressions = replay_dir(target, *f, &root.join("regressions").join(target));
    assert!(corpus > 0, "{target}: empty corpus");
    eprintln!("{target}: {corpus} corpus files, {regressions} regressions");
}

#[test]
fn catalog_decode() {
    replay("catalog_decode");
}

#[test]
fn spot_decode() {
    replay("spot_decode");
}

#[test]
fn swap_decode() {
    replay("swap_decode");
}

#[test]
fn catalog_build() {
    replay("catalog_build");
}

#[test]
fn decimal() {
    replay("decimal");
}

#[test]
fn every_target_has_a_replay_test() {
    let names: Vec<&str> = digifinex_fuzz::TARGETS.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "catalog_decode",
            "spot_decode",
            "swap_decode",
            "catalog_build",
            "decimal",
            "reader",
            "ws_frame",
            "recording",
            "feed"
        ]
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for n in names {
        assert!(
            root.join("fuzz_targets").join(format!("{n}.rs")).is_file(),
            "{n}: no cargo-fuzz binary"
        );
    }
}

#[test]
fn reader() {
    replay("reader");
    // The property is about bodies the reader decodes: the corpus must reach a decoded value
    // for every type, not only bodies both refuse.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reader");
    let mut fast = vec![0usize; digifinex_fuzz::READER_TYPES.len()];
    for e in std::fs::read_dir(dir).expect("corpus") {
        let data = std::fs::read(e.expect("entry").path()).expect("readable");
        if let [t, body @ ..] = data.as_slice() {
            let i = usize::from(*t) % fast.len();
            if (digifinex_fuzz::READER_TYPES[i].1)(body) {
                fast[i] += 1;
            }
        }
    }
    eprintln!("reader: bodies decoded (by both), per type: {fast:?}");
    for ((name, _), n) in digifinex_fuzz::READER_TYPES.iter().zip(&fast) {
        assert!(*n > 0, "no corpus body of {name} is decoded");
    }
}

#[test]
fn ws_frame() {
    replay("ws_frame");
}

#[test]
fn recording() {
    replay("recording");
}

#[test]
fn feed() {
    replay("feed");
}
