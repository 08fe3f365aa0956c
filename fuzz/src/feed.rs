//! The feed consumer (issue 41): messages a broker hands over, from any publisher.

use digifinex_core::feed::{Consumer, Output, DEFAULT_PREFIX};
use digifinex_core::ws::Subscription;

/// `feed`: messages separated by `\n`; a message whose first byte is `S` is given as a snapshot
/// (the rest of it), any other as a market stream's message.
///
/// Properties: a [`Consumer`] of a spot book and a swap trades stream never panics on them;
/// every event it gives is JSON, and one that [`digifinex_core::feed::parse_event`] reads is
/// read back from its own text unchanged; it gives at most one event, and one snapshot request, more
/// than the messages it took (a jump's marker) per message, plus the first requests.
pub fn feed(data: &[u8]) {
    let subs: Vec<Subscription> = ["spot:depth:btc_usdt", "swap:trades:BTCUSDTPERP"]
        .iter()
        .filter_map(|s| s.parse().ok())
        .collect();
    let Ok(mut consumer) = Consumer::new(DEFAULT_PREFIX, &subs) else {
        return;
    };
    let mut taken = 0usize;
    let mut given = 0usize;
    for message in data.split(|b| *b == b'\n') {
        let _ = match message.split_first() {
            Some((b'S', rest)) => consumer.handle_snapshot(rest),
            _ => consumer.handle_message(message),
        };
        taken += 1;
        while let Some(o) = consumer.poll_output() {
            given += 1;
            if let Output::Event { line, .. } = o {
                serde_json::from_str::<serde_json::Value>(&line).expect("an event is JSON");
                // An event read back is written again as the same text.
                if let Ok(event) = digifinex_core::feed::parse_event(&line) {
                    let again = serde_json::to_string(&event).expect("an event serializes");
                    let back = digifinex_core::feed::parse_event(&again).expect("reads back");
                    assert_eq!(serde_json::to_string(&back).expect("serializes"), again);
                }
            }
        }
        assert!(
            given <= 3 * taken + subs.len(),
            "{given} outputs for {taken} messages"
        );
    }
}
