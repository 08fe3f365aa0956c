//! The guide's program in "From the simulator to your bot" (`docs/guide.md`, where the README
//! leads) is `transport-ureq/examples/sim_bot.rs` word for word: the example is what CI runs
//! (`.ci/examples`), the guide is what people copy.

const GUIDE: &str = include_str!("../../docs/guide.md");
const SIM_BOT: &str = include_str!("../../transport-ureq/examples/sim_bot.rs");

/// The first ```` ```rust ```` block after the heading `heading`.
fn rust_block_after(text: &str, heading: &str) -> Option<String> {
    let section = &text[text.find(heading)? + heading.len()..];
    let start = section.find("\n```rust\n")? + "\n```rust\n".len();
    let end = section[start..].find("\n```\n")? + start + 1;
    Some(section[start..end].to_owned())
}

#[test]
fn the_guides_sim_bot_is_the_example() {
    let block = rust_block_after(GUIDE, "\n## From the simulator to your bot\n")
        .expect("the guide has the section and its rust block");
    if block != SIM_BOT {
        let line = block
            .lines()
            .zip(SIM_BOT.lines())
            .position(|(a, b)| a != b)
            .map_or_else(|| "one is longer".to_owned(), |n| format!("line {}", n + 1));
        panic!(
            "the guide's program differs from transport-ureq/examples/sim_bot.rs ({line}); \
             copy the example into docs/guide.md's block"
        );
    }
}

#[test]
fn the_block_is_found_where_it_is() {
    let text = "x\n## H\nprose\n```toml\na\n```\n\n```rust\nfn main() {}\n```\nrest\n";
    assert_eq!(
        rust_block_after(text, "\n## H\n").as_deref(),
        Some("fn main() {}\n")
    );
    assert_eq!(rust_block_after(text, "\n## Missing\n"), None);
}
