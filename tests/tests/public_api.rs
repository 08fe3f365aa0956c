//! The public surface of every publishable crate is a checked-in list
//! (`tests/data/public-api/<crate>.txt`), compared here: a change of the surface is a visible
//! diff in review, never an accident.
//!
//! DESIGN: the lists of the libraries are derived from rustdoc's HTML output, because that
//! is the documented API exactly as a user sees it, on the stable toolchain, with nothing to
//! install (`cargo public-api` needs nightly rustdoc JSON and a tool CI cannot install; a scan of
//! `pub` items in the sources would miss what macros declare, such as every `request!` type).
//! `cargo doc --no-deps` runs with the features docs.rs uses (`[package.metadata.docs.rs]`,
//! otherwise the defaults); for each item of `all.html` the list holds its declaration (fields,
//! variants, signatures, attributes such as `#[non_exhaustive]`), the signatures of its inherent
//! methods and associated items, and the headers of its trait implementations (auto and blanket
//! implementations left out). Documentation text and source positions are not part of it.
//! `#[doc(hidden)]` items (`__private`, `__fuzz`) are not listed: they are not API. An item
//! inlined from another crate (`Decimal`) is listed by name only. The CLI's surface is its
//! command line: the usage line, arguments and options of every command, from `--help`.
//!
//! rustdoc's HTML is not a stable format: after a toolchain update this test may report a
//! difference that is only markup. Regenerate the lists and read the diff:
//!
//! ```sh
//! UPDATE_PUBLIC_API=1 cargo test -p digifinex-tests --test public_api
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The libraries: package name and crate directory.
const LIBRARIES: [(&str, &str); 8] = [
    ("digifinex-core", "core"),
    ("digifinex-nats", "nats"),
    ("digifinex-ureq", "transport-ureq"),
    ("digifinex-hyper", "transport-hyper"),
    ("digifinex-market", "market"),
    ("digifinex-sim", "sim"),
    ("digifinex-export", "export"),
    ("digifinex-backtest", "backtest"),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// The target directory this test was built in (`<target>/debug/deps/public_api-*`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    exe.ancestors()
        .nth(3)
        .expect("<target>/<profile>/deps/<exe>")
        .to_path_buf()
}

fn cargo() -> Command {
    let mut c = Command::new(env!("CARGO"));
    c.current_dir(root());
    c
}

/// The features docs.rs builds a crate with: `features = [..]` under
/// `[package.metadata.docs.rs]` in its manifest.
fn docs_rs_features(dir: &str) -> Vec<String> {
    let manifest = std::fs::read_to_string(root().join(dir).join("Cargo.toml")).expect("manifest");
    let mut in_section = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_section = line == "[package.metadata.docs.rs]";
        } else if in_section && line.starts_with("features") {
            let list = line.split_once('=').expect("features = [..]").1;
            return list
                .trim()
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split(',')
                .map(|f| f.trim().trim_matches('"').to_owned())
                .filter(|f| !f.is_empty())
                .collect();
        }
    }
    Vec::new()
}

/// Runs `cargo doc --no-deps` for the libraries into this test's target directory.
fn document() -> PathBuf {
    let target = target_dir();
    let mut cmd = cargo();
    cmd.args(["doc", "--no-deps", "--quiet", "--target-dir"])
        .arg(&target);
    for (package, dir) in LIBRARIES {
        cmd.args(["-p", package]);
        for feature in docs_rs_features(dir) {
            cmd.args(["--features", &format!("{package}/{feature}")]);
        }
    }
    // Warnings in the docs are the docs step's business (CI runs it with `-D warnings`).
    cmd.env_remove("RUSTDOCFLAGS");
    let status = cmd.status().expect("cargo doc runs");
    assert!(status.success(), "cargo doc failed: {status}");
    target.join("doc")
}

/// `&lt;` and friends, as rustdoc writes them.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest.find(';').filter(|&e| e <= 8) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..end];
        let ch = match entity {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some(' '),
            _ => entity
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match ch {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `html` without its elements named `tag` (with their content): `<summary ...>...</summary>`.
fn without_element(html: &str, tag: &str) -> String {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = String::new();
    let mut rest = html;
    while let Some(i) = rest.find(&open) {
        out.push_str(&rest[..i]);
        match rest[i..].find(&close) {
            Some(j) => rest = &rest[i + j + close.len()..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text of an HTML fragment: elements removed, a line break after each block element.
fn text(html: &str) -> String {
    let html = without_element(html, "summary");
    let mut out = String::new();
    let mut rest = html.as_str();
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let end = rest[i..].find('>').map_or(rest.len(), |j| i + j + 1);
        let tag = &rest[i..end];
        if tag.starts_with("</div") || tag.starts_with("<br") {
            out.push('\n');
        } else if tag.contains("class=\"where") {
            out.push(' '); // `-> Self<span class="where">where T: ..`
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    unescape(&out)
}

/// One line: runs of white space as one space.
fn one_line(html: &str) -> String {
    text(html).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The contents of every `<hN class="code-header">` in `html`, in order, with their level.
fn code_headers(html: &str) -> Vec<(u8, String)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find(" class=\"code-header\">") {
        let level = rest[..i]
            .rfind("<h")
            .and_then(|h| rest[h + 2..h + 3].parse::<u8>().ok())
            .unwrap_or(0);
        let start = i + " class=\"code-header\">".len();
        let close = format!("</h{level}>");
        let end = rest[start..].find(&close).map_or(rest.len(), |e| start + e);
        out.push((level, one_line(&rest[start..end])));
        rest = &rest[end..];
    }
    out
}

/// The part of `page` from the element with `id` to the next section heading.
fn region<'a>(page: &'a str, id: &str) -> Option<&'a str> {
    let start = page.find(&format!("id=\"{id}\""))?;
    let rest = &page[start..];
    let end = rest[1..].find("<h2 ").map_or(rest.len(), |e| e + 1);
    Some(&rest[..end])
}

/// The listing of one item page.
fn describe_item(page: &str, crate_ident: &str) -> Vec<String> {
    let mut lines = Vec::new();
    // An item inlined from a dependency has no source link into this crate.
    let heading = page
        .find("<span class=\"sub-heading\">")
        .map(|i| &page[i..page[i..].find("</span>").map_or(page.len(), |e| i + e)])
        .unwrap_or("");
    if !heading.contains(&format!("src/{crate_ident}/")) {
        lines.push("  (inlined from another crate)".to_owned());
        return lines;
    }
    if let Some(i) = page.find("<pre class=\"rust item-decl\">") {
        let end = page[i..].find("</pre>").map_or(page.len(), |e| i + e);
        for line in text(&page[i..end]).lines() {
            let line = line.trim_end();
            if !line.trim().is_empty() {
                lines.push(format!("  {line}"));
            }
        }
    }
    if let Some(inherent) = region(page, "implementations-list") {
        for (level, header) in code_headers(inherent) {
            let indent = if level == 3 { "  " } else { "    " };
            lines.push(format!("{indent}{header}"));
        }
    }
    for id in ["trait-implementations-list", "implementors-list"] {
        if let Some(impls) = region(page, id) {
            let mut headers: Vec<String> = code_headers(impls)
                .into_iter()
                .filter(|(level, _)| *level == 3)
                .map(|(_, header)| format!("  {header}"))
                .collect();
            headers.sort();
            lines.extend(headers);
        }
    }
    lines
}

/// The listing of one library, from its `all.html`.
fn library_surface(doc: &Path, package: &str) -> String {
    let ident = package.replace('-', "_");
    let dir = doc.join(&ident);
    let all = std::fs::read_to_string(dir.join("all.html"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join("all.html").display()));
    let mut items = BTreeMap::new();
    let mut rest = all.as_str();
    while let Some(i) = rest.find("<li><a href=\"") {
        rest = &rest[i + "<li><a href=\"".len()..];
        let href = &rest[..rest.find('"').expect("href")];
        if !href.ends_with(".html") {
            continue; // the sidebar's `#structs` links
        }
        let file = href.rsplit('/').next().expect("file");
        let (kind, name) = file
            .trim_end_matches(".html")
            .split_once('.')
            .expect("kind.Name.html");
        let mut path = vec![ident.as_str()];
        path.extend(href.split('/').filter(|p| !p.ends_with(".html")));
        path.push(name);
        let page = std::fs::read_to_string(dir.join(href))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(href).display()));
        items.insert(
            (path.join("::"), kind.to_owned()),
            describe_item(&page, &ident),
        );
    }
    let mut out = format!(
        "# The public API of {package} (documented items; regenerate with\n\
         # `UPDATE_PUBLIC_API=1 cargo test -p digifinex-tests --test public_api`).\n"
    );
    for ((path, kind), lines) in items {
        out.push('\n');
        out.push_str(&format!("{kind} {path}\n"));
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// The CLI's command line: every command's usage, arguments and options, from `--help`.
fn cli_surface() -> String {
    let status = cargo()
        .args(["build", "--quiet", "-p", "digifinex-cli", "--target-dir"])
        .arg(target_dir())
        .status()
        .expect("cargo build runs");
    assert!(status.success(), "cargo build -p digifinex-cli failed");
    let exe = target_dir().join("debug").join("digifinex");
    let help = |args: &[&str]| {
        let out = Command::new(&exe)
            .args(args)
            .output()
            .expect("digifinex runs");
        assert!(out.status.success(), "digifinex {args:?}");
        String::from_utf8(out.stdout).expect("utf-8 help")
    };
    let mut out = String::from(
        "# The command line of digifinex-cli (`digifinex`): usage, arguments and options of\n\
         # each command, from `--help`; regenerate with\n\
         # `UPDATE_PUBLIC_API=1 cargo test -p digifinex-tests --test public_api`.\n",
    );
    let top = help(&["--help"]);
    let commands: Vec<String> = top
        .split("Commands:")
        .nth(1)
        .expect("a command list")
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .filter(|c| c != "help")
        .collect();
    // Commands with subcommands (`market export`) list each subcommand as a command too.
    let mut all: Vec<Vec<String>> = Vec::new();
    for command in commands {
        let text = help(&[&command, "--help"]);
        all.push(vec![command.clone()]);
        if let Some(list) = text.split("Commands:").nth(1) {
            all.extend(
                list.lines()
                    .skip(1)
                    .take_while(|l| l.starts_with("  "))
                    .filter_map(|l| l.split_whitespace().next())
                    .filter(|c| *c != "help")
                    .map(|sub| vec![command.clone(), sub.to_owned()]),
            );
        }
    }
    for command in all {
        let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
        out.push_str(&format!("\ncommand {}\n", args.join(" ")));
        args.push("--help");
        for line in help(&args).lines() {
            let trimmed = line.trim();
            let usage = trimmed.to_ascii_lowercase().starts_with("usage:");
            // Options (`--json <BODY>`, `-h, --help`) and arguments (`<METHOD>`, `[KEY=VALUE]...`)
            // are the first word(s) of an indented line.
            // Entries are indented 2 to 6 spaces; their descriptions (possible values,
            // `[default: ..]`) further.
            let indent = line.len() - line.trim_start().len();
            let entry = (2..=6).contains(&indent);
            let option = entry && trimmed.starts_with('-');
            let argument = entry && (trimmed.starts_with('<') || trimmed.starts_with('['));
            if usage {
                out.push_str(&format!("  {trimmed}\n"));
            } else if option || argument {
                out.push_str(&format!("  {}\n", entry_head(trimmed)));
            }
        }
    }
    out
}

fn check(name: &str, actual: &str) -> Option<String> {
    let path = root()
        .join("tests/data/public-api")
        .join(format!("{name}.txt"));
    if std::env::var_os("UPDATE_PUBLIC_API").is_some() {
        std::fs::create_dir_all(path.parent().expect("dir")).expect("create the directory");
        std::fs::write(&path, actual).expect("write the list");
        return None;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (generate it, see this test's header)",
            path.display()
        )
    });
    if expected == actual {
        return None;
    }
    Some(format!(
        "{name}: the public surface changed:\n{}",
        difference(&expected, actual)
    ))
}

/// The items (blocks after a blank line, named by their first line) of a listing.
fn items(listing: &str) -> BTreeMap<&str, Vec<&str>> {
    listing
        .split("\n\n")
        .skip(1) // the header comment
        .filter_map(|block| {
            let mut lines = block.lines();
            Some((lines.next()?, lines.collect()))
        })
        .collect()
}

/// What changed between two listings, item by item (at most 30 lines).
fn difference(expected: &str, actual: &str) -> String {
    let (before, after) = (items(expected), items(actual));
    let mut out = Vec::new();
    for (item, lines) in &before {
        match after.get(item) {
            None => out.push(format!("  - {item}")),
            Some(now) if now != lines => {
                out.push(format!("  ~ {item}"));
                out.extend(
                    lines
                        .iter()
                        .filter(|l| !now.contains(l))
                        .map(|l| format!("    - {}", l.trim())),
                );
                out.extend(
                    now.iter()
                        .filter(|l| !lines.contains(l))
                        .map(|l| format!("    + {}", l.trim())),
                );
            }
            Some(_) => {}
        }
    }
    out.extend(
        after
            .keys()
            .filter(|k| !before.contains_key(*k))
            .map(|k| format!("  + {k}")),
    );
    if out.is_empty() {
        out.push("  (the header or the order of items)".to_owned());
    }
    let total = out.len();
    out.truncate(30);
    if total > 30 {
        out.push(format!("  ... and {} more lines", total - 30));
    }
    out.join("\n")
}

/// The head of a `--help` entry: its flags and their value placeholders (`-v, --verbose`,
/// `--json <BODY>`, `--market FILE`, `<METHOD>`, `[KEY=VALUE]...`), without the description.
fn entry_head(trimmed: &str) -> String {
    let mut head: Vec<&str> = Vec::new();
    for word in trimmed.split_whitespace() {
        let after_flag = head.last().is_some_and(|w| w.starts_with('-'));
        let placeholder = word.starts_with('<')
            || word.starts_with('[')
            || word
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if head.is_empty() || word.starts_with('-') || (after_flag && placeholder) {
            head.push(word);
        } else {
            break;
        }
    }
    head.join(" ")
}

#[test]
fn the_public_surface_is_the_checked_in_one() {
    let doc = document();
    let mut failures = Vec::new();
    for (package, _) in LIBRARIES {
        failures.extend(check(package, &library_surface(&doc, package)));
    }
    failures.extend(check("digifinex-cli", &cli_surface()));
    assert!(
        failures.is_empty(),
        "{}\n\nIf the change is intended, regenerate the lists and commit them with a CHANGELOG \
         line:\n  UPDATE_PUBLIC_API=1 cargo test -p digifinex-tests --test public_api",
        failures.join("\n\n")
    );
}

#[test]
fn html_is_read_as_rustdoc_writes_it() {
    assert_eq!(
        unescape("a &lt;b&gt; &amp;&#39;c&#x27; &nbsp;&bogus d&"),
        "a <b> &'c'  &bogus d&"
    );
    assert_eq!(
        text("<div class=\"code-attribute\">#[non_exhaustive]</div>pub struct <span>A</span>"),
        "#[non_exhaustive]\npub struct A"
    );
    assert_eq!(
        one_line("<details><summary><span>Show 3 fields</span></summary>x:\n   u8</details>"),
        "x: u8"
    );
    let page = "<h2 id=\"implementations\">I</h2><div id=\"implementations-list\">\
        <h3 class=\"code-header\">impl <a>A</a></h3><div class=\"docblock\"><h3>Doc</h3></div>\
        <h4 class=\"code-header\">pub fn <a>new</a>() -&gt; Self</h4></div>\
        <h2 id=\"trait-implementations\">T</h2>";
    let before = "# header\n\nstruct a::A\n  pub fn x()\n\nstruct a::B\n";
    let after = "# header\n\nstruct a::A\n  pub fn y()\n\nstruct a::C\n";
    assert_eq!(
        difference(before, after),
        "  ~ struct a::A\n    - pub fn x()\n    + pub fn y()\n  - struct a::B\n  + struct a::C"
    );
    assert_eq!(
        code_headers(region(page, "implementations-list").unwrap()),
        vec![
            (3, "impl A".to_owned()),
            (4, "pub fn new() -> Self".to_owned())
        ]
    );
}
