use pretty_assertions::assert_eq;

use super::*;

const CODEX: &str = include_str!("../tests/fixtures/codex_current.jsonl");

fn slow(line_number: usize, text: &str) -> ReadEvent {
    decode_envelope(line_number, serde_json::from_str(text).unwrap_or(Value::Null))
}

#[test]
fn the_fast_path_gives_what_the_value_path_gives() {
    let mut fast_lines = 0;
    for (index, text) in CODEX.lines().enumerate() {
        if let Some(fast) = decode_envelope_fast(index + 1, text.as_bytes()) {
            assert_eq!(fast, slow(index + 1, text), "line {}", index + 1);
            fast_lines += 1;
        }
    }
    // Every line of a recorder-written rollout takes the fast path (none needs a fidelity edit),
    // including payloads whose maps serialize in another key order.
    assert_eq!(fast_lines, CODEX.lines().count());
}

#[test]
fn lines_the_fast_path_cannot_reproduce_go_the_value_way() {
    let cases = [
        // Unknown kind: kept verbatim by the value path.
        r#"{"timestamp":"t","type":"future_kind","payload":{"a":1}}"#,
        // An envelope field beyond the three.
        r#"{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","message":"hi"},"ordinal":3}"#,
        // A recorded success flag.
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"ok","success":true}}"#,
        // No timestamp.
        r#"{"type":"event_msg","payload":{"type":"agent_message","message":"hi"}}"#,
        // Corrupt.
        r#"{"timestamp":"t","type":"event_msg","payload":"#,
    ];
    for case in cases {
        assert_eq!(decode_envelope_fast(1, case.as_bytes()), None, "{case}");
    }
}


#[test]
fn a_payload_spaced_differently_still_takes_the_fast_path() {
    let text = r#"{"timestamp":"t","type":"event_msg","payload":{"type": "agent_message", "message": "hi"}}"#;
    let fast = decode_envelope_fast(1, text.as_bytes());
    assert_eq!(fast, Some(slow(1, text)));
}
