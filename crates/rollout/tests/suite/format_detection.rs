use std::path::Path;

use agentctx_rollout::RolloutError;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::read_rollout;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

fn detect(value: Value) -> Option<RolloutFormat> {
    let Value::Object(object) = value else {
        panic!("an object");
    };
    RolloutFormat::detect(&object)
}

#[test]
fn detects_each_format_from_one_line() {
    assert_eq!(
        detect(json!({"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}})),
        Some(RolloutFormat::Codex)
    );
    assert_eq!(
        detect(json!({"timestamp": "t", "type": "world_state", "payload": {}})),
        Some(RolloutFormat::Codex)
    );
    assert_eq!(
        detect(json!({"id": "x", "timestamp": "t", "instructions": null})),
        Some(RolloutFormat::CodexLegacy)
    );
    assert_eq!(
        detect(json!({"record_type": "state"})),
        Some(RolloutFormat::CodexLegacy)
    );
    assert_eq!(
        detect(json!({"type": "message", "role": "user", "content": []})),
        Some(RolloutFormat::CodexLegacy)
    );
    assert_eq!(
        detect(json!({"type": "summary", "summary": "s", "leafUuid": "u"})),
        Some(RolloutFormat::ClaudeCode)
    );
    assert_eq!(
        detect(json!({"type": "user", "sessionId": "s", "message": {}})),
        Some(RolloutFormat::ClaudeCode)
    );
    assert_eq!(
        detect(json!({"type": "brand-new-kind", "sessionId": "s"})),
        Some(RolloutFormat::ClaudeCode)
    );
    assert_eq!(
        detect(json!({"session_id": "s", "ts": 1, "text": "hi"})),
        None
    );
}

#[test]
fn every_fixture_is_detected() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let formats: Vec<(String, RolloutFormat)> = [
        "claude_1x.jsonl",
        "claude_2x.jsonl",
        "codex_current.jsonl",
        "codex_legacy.jsonl",
    ]
    .into_iter()
    .map(|name| {
        (
            name.to_string(),
            read_rollout(&fixtures.join(name)).unwrap().format,
        )
    })
    .collect();
    assert_eq!(
        formats,
        vec![
            ("claude_1x.jsonl".to_string(), RolloutFormat::ClaudeCode),
            ("claude_2x.jsonl".to_string(), RolloutFormat::ClaudeCode),
            ("codex_current.jsonl".to_string(), RolloutFormat::Codex),
            ("codex_legacy.jsonl".to_string(), RolloutFormat::CodexLegacy),
        ]
    );
}

#[test]
fn a_file_with_no_recognisable_line_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.jsonl");
    std::fs::write(&path, "{\"session_id\":\"s\",\"ts\":1,\"text\":\"hi\"}\n\n").unwrap();
    let err = read_rollout(&path).unwrap_err();
    assert!(
        matches!(&err, RolloutError::UnrecognizedFormat { path: p, lines: 2 } if p == &path),
        "{err:?}"
    );
    assert!(err.to_string().contains("history.jsonl"));
}

#[test]
fn a_missing_file_is_a_typed_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone.jsonl");
    let err = read_rollout(&gone).unwrap_err();
    assert!(
        matches!(&err, RolloutError::Open { path, source }
            if path == &gone && source.kind() == std::io::ErrorKind::NotFound),
        "{err:?}"
    );
    assert!(err.to_string().contains("gone.jsonl"));
}
