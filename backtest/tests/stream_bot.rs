//! A bot driven by its depth stream over a recording of websocket-grade data (a depth delta
//! every 10 ms, a trade every 100 ms; generated from a seed): it requotes at every change of
//! the top of book, blocking and async, and the same run gives the same report and the same
//! events, byte for byte.

#[path = "common/ws_maker.rs"]
mod ws_maker;

use ws_maker::{maker_async, maker_blocking, ws_recording};

/// Five minutes of 10 ms steps.
const STEPS: i64 = 30_000;

#[test]
fn a_stream_driven_maker_runs_alike_twice_and_on_either_client() {
    let (recording, records) = ws_recording(STEPS, false);
    assert_eq!(records, 1 + STEPS as u64 + STEPS as u64 / 10);
    let (events, report) = maker_blocking(&recording);
    let book_events = events.iter().filter(|e| e.contains("Book(")).count();
    assert!(
        book_events > 1000,
        "{book_events} book events in five minutes"
    );
    let fills: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert!(!fills["fills"].as_array().unwrap().is_empty());
    let (again, report_again) = maker_blocking(&recording);
    same(&events, &again, "the same run");
    assert_eq!(report, report_again);
    let (async_events, async_report) = maker_async(&recording);
    same(&events, &async_events, "the async client");
    assert_eq!(report, async_report);
}

/// The first event where two runs differ, if any.
fn same(a: &[String], b: &[String], what: &str) {
    if let Some(i) = a.iter().zip(b).position(|(x, y)| x != y) {
        panic!(
            "{what} read other events from {i} on:\n{:?}\n{:?}",
            &a[i.saturating_sub(2)..(i + 3).min(a.len())],
            &b[i.saturating_sub(2)..(i + 3).min(b.len())]
        );
    }
    assert_eq!(a.len(), b.len(), "{what}: as many events");
}
