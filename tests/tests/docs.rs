//! The documents in `docs/` are checked against what the code does, so that they cannot rot:
//!
//! * every `$ digifinex ...` example (`docs/*.md`) is run, and its output (stdout, stderr, then
//!   `[exit N]` for a non-zero exit) must be the block that follows it;
//! * every `signed text:` / `signature:` pair is an HMAC-SHA256 of that text with the examples'
//!   secret, and the signature is the one the example's output carries;
//! * the websocket `server.auth` vectors are what `sign::sign_ws` computes, and the auth and
//!   subscribe frames shown are the ones `ws::Connection` sends;
//! * the error-code tables list every code the library knows, with its meaning and kind;
//! * the CLI reference lists exactly the arguments and options `--help` prints, per command,
//!   with the same usage line, and its command lines use only options that exist;
//! * every fenced block has a language (an untagged block would be compiled as Rust), every
//!   JSON block parses, and every relative link (and `#anchor`) in `docs/` and the README
//!   resolves. The Rust blocks themselves are compiled and run as doctests (`tests/src/lib.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use digifinex_core::sign::{hmac_sha256_hex, sign_ws};
use digifinex_core::ws::{Action, Connection, WsConfig};
use digifinex_core::{ApiCode, Credentials, Family, TimestampMillis};

/// The secret of every signing example (the venue's own documentation example).
const SECRET: &str = "01234567890123456789abcd";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

fn read(relative: &str) -> String {
    let path = root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every document of `docs/`, by file name.
fn docs() -> BTreeMap<String, String> {
    let dir = root().join("docs");
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = e.expect("entry").path();
        if path.extension().is_some_and(|x| x == "md") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            out.insert(name, std::fs::read_to_string(&path).expect("readable"));
        }
    }
    assert!(out.contains_key("protocol.md") && out.contains_key("cli.md"));
    out
}

/// A fenced code block: its language tag, its text, and the heading it sits under.
#[derive(Debug, Clone)]
struct Block {
    lang: String,
    text: String,
    heading: String,
}

fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut heading = String::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        if line.starts_with('#') {
            heading = line.trim_start_matches('#').trim().to_owned();
        } else if let Some(lang) = line.strip_prefix("```") {
            let mut text = String::new();
            for l in lines.by_ref() {
                if l == "```" {
                    break;
                }
                text.push_str(l);
                text.push('\n');
            }
            out.push(Block {
                lang: lang.trim().to_owned(),
                text,
                heading: heading.clone(),
            });
        }
    }
    out
}

/// The words of a command line, with single-quoted words kept whole (`--json '[..]'`).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    assert!(!quoted, "unbalanced quote: {line}");
    if any {
        out.push(word);
    }
    out
}

/// The `digifinex` binary, built for this test's target directory; `DIGIFINEX_CLI=PATH` checks
/// another one instead (an installed release).
fn digifinex() -> PathBuf {
    if let Some(path) = std::env::var_os("DIGIFINEX_CLI") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the test's path");
    let target = exe
        .ancestors()
        .nth(3)
        .expect("<target>/<profile>/deps/<exe>");
    let status = Command::new(env!("CARGO"))
        .current_dir(root())
        .args(["build", "--quiet", "-p", "digifinex-cli", "--target-dir"])
        .arg(target)
        .status()
        .expect("cargo build runs");
    assert!(status.success(), "cargo build -p digifinex-cli failed");
    target.join("debug").join("digifinex")
}

/// Runs `digifinex args` with `stdin`: stdout, stderr, then `[exit N]` when N is not 0.
fn run(exe: &Path, args: &[String], stdin: Option<&str>) -> String {
    use std::io::Write;
    let mut child = Command::new(exe)
        .args(args)
        .env_remove("DIGIFINEX_API_KEY")
        .env_remove("DIGIFINEX_API_SECRET")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("digifinex runs");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).expect("stdin written");
    }
    drop(input);
    let out = child.wait_with_output().expect("digifinex ends");
    let mut text = String::from_utf8(out.stdout).expect("utf-8");
    text.push_str(&String::from_utf8(out.stderr).expect("utf-8"));
    let code = out.status.code().expect("an exit code");
    if code != 0 {
        text.push_str(&format!("[exit {code}]\n"));
    }
    text
}

/// `$ [echo 'BODY' |] digifinex ARGS`: the arguments and the standard input.
fn example(line: &str) -> (Vec<String>, Option<String>) {
    let command = line.strip_prefix("$ ").expect("a `$ ` line");
    let (stdin, command) = match command.split_once(" | ") {
        Some((echo, rest)) if echo.starts_with("echo ") => {
            let body = words(echo.strip_prefix("echo ").unwrap()).join(" ");
            (Some(format!("{body}\n")), rest)
        }
        _ => (None, command),
    };
    let mut args = words(command);
    assert_eq!(
        args.first().map(String::as_str),
        Some("digifinex"),
        "{line}"
    );
    args.remove(0);
    (args, stdin)
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
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' || c == ',');
        if head.is_empty() || word.starts_with('-') || (after_flag && placeholder) {
            head.push(word);
        } else {
            break;
        }
    }
    head.join(" ")
}

#[test]
fn the_command_examples_print_what_the_documents_show() {
    let exe = digifinex();
    let mut ran = 0;
    for (name, text) in docs() {
        let blocks = blocks(&text);
        for (i, block) in blocks.iter().enumerate() {
            let Some(line) = block.text.lines().next().filter(|l| l.starts_with("$ ")) else {
                continue;
            };
            assert_eq!(block.lang, "sh", "{name}: {line}");
            assert_eq!(
                block.text.lines().count(),
                1,
                "{name}: one command per block"
            );
            let expected = blocks
                .get(i + 1)
                .unwrap_or_else(|| panic!("{name}: no output block after {line}"));
            let (args, stdin) = example(line);
            let actual = run(&exe, &args, stdin.as_deref());
            assert_eq!(
                actual, expected.text,
                "{name}: `{line}` prints something else than the document shows"
            );
            ran += 1;
        }
    }
    assert!(ran >= 10, "only {ran} examples found");
}

#[test]
fn every_signed_text_gives_its_signature() {
    let protocol = &docs()["protocol.md"];
    let blocks = blocks(protocol);
    let mut checked = 0;
    for (i, block) in blocks.iter().enumerate() {
        let lines: Vec<&str> = block.text.lines().collect();
        for pair in lines.windows(2) {
            let (Some(text), Some(sign)) = (
                pair[0].strip_prefix("signed text:"),
                pair[1].strip_prefix("signature:"),
            ) else {
                continue;
            };
            let (text, sign) = (text.strip_prefix(' ').unwrap_or(text), sign.trim());
            assert_eq!(
                hmac_sha256_hex(SECRET.as_bytes(), &[text.as_bytes()]).unwrap(),
                sign,
                "signed text {text:?}"
            );
            // The example's output (the JSON block before) carries that signature.
            let output = &blocks[i - 1];
            assert_eq!(output.lang, "json");
            let request: serde_json::Value = serde_json::from_str(&output.text).unwrap();
            assert_eq!(request["headers"]["access-sign"], sign, "{text:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, 6);
}

/// The rows of the first table after `heading` (cells trimmed, header and rule left out).
fn table_after(markdown: &str, heading: &str) -> Vec<Vec<String>> {
    let start = markdown
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?}"));
    markdown[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect()
}

fn unquote(cell: &str) -> &str {
    cell.trim_matches('`')
}

#[test]
fn the_websocket_signatures_and_frames_are_the_clients() {
    let protocol = &docs()["protocol.md"];
    let rows = table_after(protocol, "### Websocket authentication");
    assert_eq!(rows.len(), 3);
    for row in &rows {
        let (secret, timestamp, signature) = (unquote(&row[0]), unquote(&row[1]), unquote(&row[2]));
        assert_eq!(
            sign_ws(secret.as_bytes(), timestamp).unwrap(),
            signature,
            "{row:?}"
        );
    }
    // The frames shown are the ones the connection sends, byte for byte.
    let json_blocks: Vec<String> = blocks(protocol)
        .into_iter()
        .filter(|b| b.lang == "json")
        .map(|b| b.text.trim_end().to_owned())
        .collect();
    let shown = |frame: &str| {
        assert!(
            json_blocks.iter().any(|b| b == frame),
            "docs/protocol.md does not show the frame {frame}"
        );
    };
    let now = TimestampMillis(1_583_135_616_239);
    let credentials = Credentials::new("0123456789abcd", SECRET);
    for (family, private, public) in [
        (Family::Spot, "spot:order", "spot:depth:BTC_USDT"),
        (Family::Swap, "swap:order", "swap:depth:BTCUSDTPERP"),
    ] {
        // A measured offset at hand: the auth is the first frame (without one, `server.time`).
        let measured = WsConfig {
            time_offset_ms: Some(0),
            ..WsConfig::default()
        };
        let mut conn = Connection::new(family, measured, Some(credentials.clone()));
        conn.subscribe(private.parse().unwrap()).unwrap();
        shown(&first_frame(&mut conn, now));
        let mut conn = Connection::new(family, WsConfig::default(), None);
        conn.subscribe(public.parse().unwrap()).unwrap();
        shown(&first_frame(&mut conn, now));
    }
    // The zlib example: the reply, compressed at level 9, starts `78 DA`, ends with the reply's
    // Adler-32 as shown, and the client's frame decoder restores it.
    let reply = r#"{"event":"server.ping","id":7,"code":1,"msg":"success","data":"pong"}"#;
    shown(reply);
    assert_eq!(reply.len(), 69);
    assert!(protocol.contains("the 69-byte reply"));
    let adler = adler32(reply.as_bytes()).to_be_bytes();
    let shown_adler = format!(
        "`{:02X} {:02X} {:02X} {:02X}`",
        adler[0], adler[1], adler[2], adler[3]
    );
    assert!(protocol.contains(&shown_adler), "{shown_adler}");
    let z = miniz_oxide::deflate::compress_to_vec_zlib(reply.as_bytes(), 9);
    assert_eq!(&z[..2], [0x78, 0xDA]);
    assert_eq!(&z[z.len() - 4..], adler);
    let text = digifinex_core::ws::frame::decode(digifinex_core::ws::Frame::Binary(&z)).unwrap();
    assert_eq!(&*text, reply.as_bytes());
    // Every JSON block of every document parses: one JSON value, or JSON lines.
    for (name, text) in docs() {
        for b in blocks(&text).iter().filter(|b| b.lang == "json") {
            if serde_json::from_str::<serde_json::Value>(&b.text).is_ok() {
                continue;
            }
            for line in b.text.lines().filter(|l| !l.trim().is_empty()) {
                serde_json::from_str::<serde_json::Value>(line)
                    .unwrap_or_else(|e| panic!("{name} ({}): {e}\n{line}", b.heading));
            }
        }
    }
}

/// Adler-32 (RFC 1950), the zlib trailer.
fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}

/// The first frame a new connection sends.
fn first_frame(conn: &mut Connection, now: TimestampMillis) -> String {
    for _ in 0..10 {
        match conn.poll(now) {
            Action::Connect => conn.on_connected(now),
            Action::Send(text) => return text.to_string(),
            _ => {}
        }
    }
    panic!("the connection sent nothing");
}

/// Every code of a family the library knows, as `(code, meaning, kind)`.
fn known_codes(family: Family, ranges: &[std::ops::RangeInclusive<i64>]) -> Vec<[String; 3]> {
    ranges
        .iter()
        .flat_map(|r| r.clone())
        .map(|c| ApiCode::from_family(family, c))
        .filter(|c| c.meaning() != "unknown error code")
        .map(|c| {
            [
                c.code().to_string(),
                c.meaning().to_owned(),
                c.kind().to_string(),
            ]
        })
        .collect()
}

#[test]
fn the_error_tables_are_the_librarys() {
    let protocol = &docs()["protocol.md"];
    let rows = |heading| -> Vec<[String; 3]> {
        table_after(protocol, heading)
            .into_iter()
            .map(|r| {
                assert_eq!(r.len(), 3, "{r:?}");
                [r[0].clone(), r[1].clone(), r[2].clone()]
            })
            .collect()
    };
    let spot = known_codes(
        Family::Spot,
        &[10_000..=10_100, 20_000..=20_100, 50_000..=50_010],
    );
    assert_eq!(spot.len(), 46);
    assert_eq!(rows("### Spot codes"), spot);
    let swap = known_codes(
        Family::Swap,
        &[
            400_000..=400_100,
            401_000..=401_100,
            403_000..=403_100,
            404_000..=404_100,
            500_000..=500_100,
        ],
    );
    assert_eq!(swap.len(), 45);
    assert_eq!(rows("### Swap codes"), swap);
    // The kinds a bot decides on, each with what to do.
    let kinds: BTreeSet<String> = table_after(protocol, "### What to do, by kind")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    let all = [
        "auth",
        "clock",
        "rate limit",
        "ban",
        "invalid request",
        "insufficient funds",
        "not found",
        "suspended",
        "server",
        "redirect",
        "decode",
        "network",
        "outcome unknown",
        "unknown",
    ];
    assert_eq!(kinds, all.iter().map(|k| k.to_string()).collect());
}

/// A command's `--help`: the usage line and the heads of its argument and option lines.
fn help_surface(exe: &Path, command: &str) -> (String, BTreeSet<String>) {
    help_surface_of(exe, &[command])
}

/// The subcommands `digifinex COMMAND.. --help` lists (none for most commands).
fn subcommands(exe: &Path, command: &[&str]) -> Vec<String> {
    let out = Command::new(exe)
        .args(command)
        .arg("--help")
        .output()
        .expect("digifinex runs");
    let help = String::from_utf8(out.stdout).expect("utf-8");
    let Some(list) = help.split("Commands:").nth(1) else {
        return Vec::new();
    };
    list.lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

fn help_surface_of(exe: &Path, command: &[&str]) -> (String, BTreeSet<String>) {
    let out = Command::new(exe)
        .args(command)
        .arg("--help")
        .output()
        .expect("digifinex runs");
    let command = command.join(" ");
    assert!(out.status.success(), "digifinex {command} --help");
    let help = String::from_utf8(out.stdout).expect("utf-8");
    let mut usage = String::new();
    let mut heads = BTreeSet::new();
    for line in help.lines() {
        let trimmed = line.trim();
        if trimmed.to_ascii_lowercase().starts_with("usage:") {
            usage = trimmed.to_owned();
        } else if (2..=6).contains(&(line.len() - line.trim_start().len()))
            && (trimmed.starts_with('-') || trimmed.starts_with('<') || trimmed.starts_with('['))
        {
            // An entry, indented 2 to 6 spaces (its description lines are further in).
            heads.insert(entry_head(trimmed));
        }
    }
    (usage, heads)
}

#[test]
fn the_cli_reference_is_the_clis() {
    let exe = digifinex();
    let cli = &docs()["cli.md"];
    let top = Command::new(&exe).arg("--help").output().expect("runs");
    let top = String::from_utf8(top.stdout).expect("utf-8");
    let commands: Vec<&str> = top
        .split("Commands:")
        .nth(1)
        .expect("a command list")
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    let documented: Vec<&str> = cli
        .lines()
        .filter_map(|l| l.strip_prefix("## `digifinex "))
        .map(|l| l.trim_end_matches('`'))
        .collect();
    assert_eq!(
        documented.iter().collect::<BTreeSet<_>>(),
        commands.iter().collect::<BTreeSet<_>>(),
        "docs/cli.md documents other commands than `digifinex --help` lists"
    );
    let mut helps = BTreeMap::new();
    for command in &commands {
        let heading = format!("## `digifinex {command}`");
        let section_start = cli.find(&heading).unwrap();
        let section = &cli[section_start + heading.len()..];
        let section = &section[..section.find("\n## ").unwrap_or(section.len())];
        let (usage, heads) = help_surface(&exe, command);
        let shown_usage = blocks(section)
            .into_iter()
            .find(|b| b.lang == "text")
            .map(|b| b.text.trim().to_owned())
            .unwrap_or_default();
        assert_eq!(shown_usage, usage, "the usage line of `{command}`");
        let rows: BTreeSet<String> = table_after(section, "| argument or option |")
            .into_iter()
            .map(|r| unquote(&r[0]).to_owned())
            .collect();
        assert_eq!(rows, heads, "the arguments and options of `{command}`");
        // A command with subcommands (`market export`): each has a `### ` subsection checked
        // the same way.
        for sub in subcommands(&exe, &[command]) {
            let name = format!("{command} {sub}");
            let heading = format!("### `digifinex {name}`");
            let start = section
                .find(&heading)
                .unwrap_or_else(|| panic!("docs/cli.md: no {heading}"));
            let sub_section = &section[start + heading.len()..];
            let sub_section =
                &sub_section[..sub_section.find("\n### ").unwrap_or(sub_section.len())];
            let (usage, heads) = help_surface_of(&exe, &[command, &sub]);
            let shown_usage = blocks(sub_section)
                .into_iter()
                .find(|b| b.lang == "text")
                .map(|b| b.text.trim().to_owned())
                .unwrap_or_default();
            assert_eq!(shown_usage, usage, "the usage line of `{name}`");
            let rows: BTreeSet<String> = table_after(sub_section, "| argument or option |")
                .into_iter()
                .map(|r| unquote(&r[0]).to_owned())
                .collect();
            assert_eq!(rows, heads, "the arguments and options of `{name}`");
            helps.insert(name, heads);
        }
        helps.insert(command.to_string(), heads);
    }
    // Command lines in any document use only options their command has.
    let mut lines = 0;
    for (name, text) in docs()
        .into_iter()
        .chain([("README.md".into(), read("README.md"))])
    {
        for b in blocks(&text).iter().filter(|b| b.lang == "sh") {
            for line in b.text.lines() {
                let line = line.trim_start_matches("$ ");
                let line = line.split(" #").next().unwrap_or(line);
                let words = words(line.split(" | ").last().unwrap_or(line));
                // `digifinex CMD ..`, or `cargo run -p digifinex-cli -- CMD ..`.
                let at = words.iter().position(|w| w == "digifinex").or_else(|| {
                    let cli = words.iter().position(|w| w == "digifinex-cli")?;
                    let dashes = cli + words[cli..].iter().position(|w| w == "--")?;
                    Some(dashes)
                });
                let Some(at) = at else {
                    continue;
                };
                let Some(command) = words.get(at + 1) else {
                    continue;
                };
                // `market export ..`: the subcommand's options.
                let (command, rest) = match words.get(at + 2) {
                    Some(sub) if helps.contains_key(&format!("{command} {sub}")) => {
                        (format!("{command} {sub}"), at + 3)
                    }
                    _ => (command.clone(), at + 2),
                };
                let Some(heads) = helps.get(&command) else {
                    panic!("{name}: `{line}`: no command {command}");
                };
                for flag in words[rest..].iter().filter(|w| w.starts_with("--")) {
                    let flag = flag.split('=').next().unwrap_or(flag);
                    assert!(
                        heads
                            .iter()
                            .any(|h| h.split([',', ' ']).any(|part| part == flag)),
                        "{name}: `{line}`: `{command}` has no option {flag}"
                    );
                }
                lines += 1;
            }
        }
    }
    assert!(lines >= 15, "{lines}");
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a document's headings (a repeated heading gets `-1`, `-2`, ...).
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut in_code = false;
    for line in markdown.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            let s = slug(line.trim_start_matches('#'));
            let n = seen.entry(s.clone()).or_default();
            out.insert(if *n == 0 {
                s.clone()
            } else {
                format!("{s}-{n}")
            });
            *n += 1;
        }
    }
    out
}

#[test]
fn every_block_has_a_language_and_every_link_resolves() {
    let mut documents = docs()
        .into_iter()
        .map(|(name, text)| (format!("docs/{name}"), text))
        .collect::<Vec<_>>();
    documents.push(("README.md".into(), read("README.md")));
    for (name, text) in &documents {
        if name.starts_with("docs/") {
            for b in blocks(text) {
                assert!(
                    !b.lang.is_empty(),
                    "{name} ({}): a block without a language",
                    b.heading
                );
            }
        }
        let dir = Path::new(name).parent().unwrap_or(Path::new(""));
        let mut rest = text.as_str();
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            let target = &rest[..rest.find(')').unwrap_or(0)];
            if target.contains("://") || target.starts_with("mailto:") || target.contains(' ') {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let (path, linked) = if file.is_empty() {
                (name.clone(), text.clone())
            } else {
                let path = dir.join(file).to_string_lossy().into_owned();
                let linked = std::fs::read_to_string(root().join(&path))
                    .unwrap_or_else(|e| panic!("{name}: link to {target}: {e}"));
                (path, linked)
            };
            if !anchor.is_empty() && path.ends_with(".md") {
                assert!(
                    anchors(&linked).contains(anchor),
                    "{name}: no heading for #{anchor} in {path}"
                );
            }
        }
    }
    // The README leads to every document.
    let readme = read("README.md");
    for name in docs().keys() {
        assert!(
            readme.contains(&format!("(docs/{name}")),
            "the README does not link docs/{name}"
        );
    }
}

#[test]
fn the_helpers_read_markdown_as_written() {
    assert_eq!(
        words(r#"digifinex request --json '[{"a": 1}]' x=y"#),
        ["digifinex", "request", "--json", r#"[{"a": 1}]"#, "x=y"]
    );
    assert_eq!(entry_head("-v, --verbose  Describe each"), "-v, --verbose");
    assert_eq!(entry_head("--key <K>  API access key"), "--key <K>");
    assert_eq!(
        entry_head("--market FILE replay a recorded market"),
        "--market FILE"
    );
    assert_eq!(
        entry_head("[KEY=VALUE]...  Wire parameters"),
        "[KEY=VALUE]..."
    );
    assert_eq!(slug(" Spot and margin (v3)"), "spot-and-margin-v3");
    assert_eq!(
        slug("Check a signature yourself"),
        "check-a-signature-yourself"
    );
    let md = "# A\n```sh\n# not a heading\n```\n## A\n";
    assert_eq!(
        anchors(md),
        ["a", "a-1"].map(str::to_owned).into_iter().collect()
    );
    let (args, stdin) = example("$ echo '{\"a\":1}' | digifinex decode GET /v3/ping");
    assert_eq!(args, ["decode", "GET", "/v3/ping"]);
    assert_eq!(stdin.as_deref(), Some("{\"a\":1}\n"));
}
