//! docs/simulator.md against the simulator: every fault rule it shows as JSON is a rule the
//! control API takes, and together they name every fault kind.

use digifinex_sim::{FaultRule, Sim, SimConfig};
use std::io::{Read, Write};

const DOC: &str = include_str!("../../docs/simulator.md");

/// The JSON block that follows `marker`.
fn json_after(marker: &str) -> serde_json::Value {
    let at = DOC.find(marker).expect("the marker is in the document");
    let rest = &DOC[at..];
    let start = rest.find("```json\n").expect("a JSON block") + "```json\n".len();
    let end = rest[start..].find("```").expect("the block ends");
    serde_json::from_str(&rest[start..start + end]).expect("the block is JSON")
}

#[test]
fn every_documented_fault_rule_is_taken_by_the_control_api() {
    let rules = json_after("Every kind, each");
    let rules = rules.as_array().expect("a list of rules");
    let sim = Sim::start(SimConfig::default().without_flow()).unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    for rule in rules {
        let typed: FaultRule = serde_json::from_value(rule.clone()).expect("a FaultRule");
        kinds.insert(rule["fault"]["kind"].as_str().unwrap().to_owned());
        let body = rule.to_string();
        let mut tcp = std::net::TcpStream::connect(sim.addr()).unwrap();
        write!(
            tcp,
            "POST /__sim/faults HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        tcp.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{body}: {answer}");
        assert!(sim.control().faults().iter().any(|(_, r)| *r == typed));
    }
    let all = [
        "drop_after_apply",
        "drop_before_apply",
        "html_error",
        "late_answer",
        "latency",
        "malformed_json",
        "server_error",
        "too_many_requests",
        "truncated_body",
    ];
    assert_eq!(kinds.into_iter().collect::<Vec<_>>(), all);
}
