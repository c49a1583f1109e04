use agentctx_rollout::RolloutFormat;
use agentctx_rollout::SkippedLine;
use agentctx_rollout::read_rollout;
use pretty_assertions::assert_eq;

const CODEX_CURRENT: &str = include_str!("../fixtures/codex_current.jsonl");

#[test]
fn corrupt_lines_are_skipped_with_their_number_and_the_rest_is_read() {
    let mut lines: Vec<Vec<u8>> = CODEX_CURRENT
        .lines()
        .map(|line| line.as_bytes().to_vec())
        .collect();
    let total_records = lines.len();
    // Line 4: truncated mid-write.
    lines.insert(
        3,
        br#"{"timestamp":"2025-11-14T08:12:09.870Z","type":"respo"#.to_vec(),
    );
    // Line 7: not an object.
    lines.insert(6, b"[1, 2, 3]".to_vec());
    // Line 9: invalid UTF-8.
    lines.insert(8, b"{\"timestamp\":\"\xff\xfe\"}".to_vec());
    // Line 11: an envelope without payload.
    lines.insert(10, br#"{"timestamp":"t","type":"response_item"}"#.to_vec());
    // Line 12: blank.
    lines.insert(11, Vec::new());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout.jsonl");
    std::fs::write(&path, lines.join(&b'\n')).unwrap();

    let file = read_rollout(&path).unwrap();
    assert_eq!(file.format, RolloutFormat::Codex);
    assert_eq!(file.records.len(), total_records);
    let skipped: Vec<(usize, String)> = file
        .skipped
        .iter()
        .map(
            |SkippedLine {
                 line_number,
                 reason,
             }| (*line_number, reason.clone()),
        )
        .collect();
    assert_eq!(
        skipped,
        vec![
            (
                4,
                "invalid json: EOF while parsing a string at line 1 column 53".to_string()
            ),
            (7, "not a json object".to_string()),
            (9, "invalid utf-8".to_string()),
            (
                11,
                "rollout line of type `response_item` has no `payload` field".to_string()
            ),
        ]
    );
    assert_eq!(file.lines, total_records + 5);
    assert_eq!(
        file.skipped[0].to_string(),
        "line 4: invalid json: EOF while parsing a string at line 1 column 53"
    );
}

#[test]
fn a_corrupt_first_line_does_not_prevent_format_detection() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let text = format!(
        "{{\"type\":\"us\n{}",
        include_str!("../fixtures/claude_1x.jsonl")
    );
    std::fs::write(&path, text).unwrap();
    let file = read_rollout(&path).unwrap();
    assert_eq!(file.format, RolloutFormat::ClaudeCode);
    assert_eq!(file.skipped.len(), 1);
    assert_eq!(file.skipped[0].line_number, 1);
    assert_eq!(file.items().count(), 5);
}
