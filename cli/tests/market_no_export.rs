//! `digifinex market export` in a CLI built without its `export` feature (the default): exit 2,
//! saying how to build it with the feature, and nothing written.
#![cfg(not(feature = "export"))]

use std::process::{Command, Stdio};

#[test]
fn says_how_to_get_the_export_feature() {
    let out = std::env::temp_dir().join(format!("dfx-cli-no-export-{}", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args([
            "market",
            "export",
            "missing.jsonl.gz",
            "--format",
            "csv",
            "--out",
        ])
        .arg(&out)
        .stdin(Stdio::null())
        .output()
        .expect("run digifinex market export");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: this digifinex was built without the `export` feature (cargo build -p \
         digifinex-cli --features export)\n"
    );
    assert!(!out.exists());
}
