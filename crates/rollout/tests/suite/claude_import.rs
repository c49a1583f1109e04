use std::collections::BTreeMap;
use std::path::Path;

use agentctx_protocol::ContentItem;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::ResponseItem;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::read_rollout;
use pretty_assertions::assert_eq;

use super::render;

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

#[test]
fn claude_2x_transcript_imports_every_record_kind() {
    let file = read_rollout(&fixture("claude_2x.jsonl")).unwrap();
    assert_eq!(file.format, RolloutFormat::ClaudeCode);
    assert_eq!(file.lines, 23);
    assert_eq!(file.skipped, vec![]);
    assert_eq!(
        render::records(&file.records),
        vec![
            "L2 -- session_meta 7f3c9d2e-1b84-4a6f-9e0c-5d2a8b4f6c17 claude_code 2.0.55",
            "L2 M- message/user: <local-command-caveat>Caveat: The messages below…",
            "L3 -- message/user: the monthly report double counts transfers betwe…",
            "L4 -- reasoning: summary=0 content=1 encrypted=false",
            "L4 -- message/assistant: Let me look at how the report aggregates amounts…",
            "L4 -- function_call Grep toolu_01AbCdEfGhIjKlMnOpQrStUv {\"-n\":true,\"output_mode\":\"content\",\"path\":\"src\",…",
            "L4 -- token_count last_input=19091 cached=14872 output=164 total_input=19091 window=None",
            "L8 -- function_call_output toolu_01AbCdEfGhIjKlMnOpQrStUv success=Some(true) text: src/report.rs:58:pub fn monthly_totals(entries: …",
            "L9 -- function_call Read toolu_01Rd4Fs7Gt0Hu3Iv6Jw9Kx2L {\"file_path\":\"/home/mira/src/tally/src/report.rs…",
            "L9 -- function_call Bash toolu_01Mn5Op8Qr1St4Uv7Wx0Yz3A {\"command\":\"cargo test report:: 2>&1 | tail -5\",…",
            "L9 -- token_count last_input=19400 cached=19082 output=141 total_input=38491 window=None",
            "L11 -- function_call_output toolu_01Rd4Fs7Gt0Hu3Iv6Jw9Kx2L success=Some(true) items:     58→pub fn monthly_totals(entries: &[Entry]) …",
            "L11 -- function_call_output toolu_01Mn5Op8Qr1St4Uv7Wx0Yz3A success=Some(false) text: error: no test target named `report::`",
            "L12 -- message/assistant: `monthly_totals` sums `amount.abs()` for every e…",
            "L12 -- token_count last_input=19896 cached=19394 output=61 total_input=58387 window=None",
            "L14 -- message/user: input_image | here is the report before your change, the Savin…",
            "L15 -S message/user: Find every place that constructs an Entry with a…",
            "L16 -S message/assistant: Entries with a counterparty are built in src/imp…",
            "L16 -S token_count last_input=1203 cached=0 output=36 total_input=59590 window=None",
            "L18 -- compacted replacement=Some(1) extra={\"pre_tokens\":24690,\"trigger\":\"manual\"} message: This session is being continued from a previous …",
            "L19 -- message/user: go ahead and make the change, with a test",
            "L20 -- message/assistant: Done: `monthly_totals` now skips entries whose c…",
            "L20 -- token_count last_input=17963 cached=11840 output=44 total_input=77553 window=None",
        ]
    );
    let ignored: BTreeMap<String, usize> = [
        ("agent-name", 1),
        ("file-history-snapshot", 1),
        ("progress", 1),
        ("queue-operation", 1),
        ("summary", 1),
        ("system:turn_duration", 1),
    ]
    .into_iter()
    .map(|(kind, count)| (kind.to_string(), count))
    .collect();
    assert_eq!(file.ignored, ignored);
}

#[test]
fn split_assistant_records_merge_into_one_message_with_usage_counted_once() {
    let file = read_rollout(&fixture("claude_2x.jsonl")).unwrap();
    let from_first_message: Vec<&ResponseItem> = file
        .records
        .iter()
        .filter(|record| record.line_number == 4)
        .filter_map(|record| record.response_item())
        .collect();
    assert_eq!(from_first_message.len(), 3);
    assert_eq!(
        from_first_message[1],
        &ResponseItem::assistant_text("Let me look at how the report aggregates amounts.")
    );
    assert_eq!(
        from_first_message[2],
        &ResponseItem::function_call(
            "toolu_01AbCdEfGhIjKlMnOpQrStUv",
            "Grep",
            r#"{"-n":true,"output_mode":"content","path":"src","pattern":"fn monthly_totals"}"#,
        )
    );
}

#[test]
fn images_become_data_urls_and_tool_result_blocks_keep_their_parts() {
    let file = read_rollout(&fixture("claude_2x.jsonl")).unwrap();
    let items: Vec<&ResponseItem> = file.items().collect();
    let image_message = items
        .iter()
        .find(|item| {
            matches!(item, ResponseItem::Message { content, .. }
                if matches!(content.first(), Some(ContentItem::InputImage { .. })))
        })
        .unwrap();
    let ResponseItem::Message { content, .. } = image_message else {
        panic!("a message");
    };
    assert_eq!(
        content[0],
        ContentItem::InputImage {
            image_url: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==".to_string(),
            detail: None,
        }
    );
    let read_output = items
        .iter()
        .find(|item| {
            item.call_id() == Some("toolu_01Rd4Fs7Gt0Hu3Iv6Jw9Kx2L") && item.is_tool_output()
        })
        .unwrap();
    let ResponseItem::FunctionCallOutput { output, .. } = read_output else {
        panic!("an output");
    };
    let FunctionCallOutputBody::ContentItems(parts) = &output.body else {
        panic!("structured content");
    };
    assert!(matches!(
        &parts[..],
        [FunctionCallOutputContentItem::InputText { text }] if text.contains("monthly_totals")
    ));
}

#[test]
fn claude_1x_transcript_reads_with_combined_assistant_records() {
    let file = read_rollout(&fixture("claude_1x.jsonl")).unwrap();
    assert_eq!(file.format, RolloutFormat::ClaudeCode);
    assert_eq!(
        render::records(&file.records),
        vec![
            "L2 -- session_meta 2c8e4a60-9d1b-4f3e-8a57-c6b0d2e4f819 claude_code 1.0.43",
            "L2 -- message/user: add a --json flag to the balance command",
            "L3 -- message/assistant: I'll look at the balance command first.",
            "L3 -- function_call Read toolu_01Dx9Ey2Fz5Ga8Hb1Ic4Jd7K {\"file_path\":\"/home/mira/src/tally/src/balance.r…",
            "L3 -- token_count last_input=13254 cached=0 output=97 total_input=13254 window=None",
            "L4 -- function_call_output toolu_01Dx9Ey2Fz5Ga8Hb1Ic4Jd7K success=Some(true) text:      1→pub fn balance(ledger: &Ledger) {⏎     2→…",
            "L5 -- message/assistant: `balance` now takes `--json` and prints `{\"accou…",
            "L5 -- token_count last_input=13464 cached=13250 output=31 total_input=26718 window=None",
        ]
    );
    assert_eq!(file.ignored.get("summary"), Some(&1));
}

#[test]
fn a_compact_boundary_without_summary_empties_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("boundary.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"type":"user","sessionId":"s1","message":{"role":"user","content":"first"},"timestamp":"2025-12-01T00:00:00Z"}"#,
            "\n",
            r#"{"type":"system","subtype":"compact_boundary","sessionId":"s1","compactMetadata":{"trigger":"auto","preTokens":155000}}"#,
            "\n",
            r#"{"type":"user","sessionId":"s1","message":{"role":"user","content":"second"}}"#,
            "\n",
        ),
    )
    .unwrap();
    let file = read_rollout(&path).unwrap();
    assert_eq!(
        render::records(&file.records),
        vec![
            "L1 -- session_meta s1 claude_code -",
            "L1 -- message/user: first",
            "L2 -- compacted replacement=Some(0) extra={\"pre_tokens\":155000,\"trigger\":\"auto\"} message: ",
            "L3 -- message/user: second",
        ]
    );
}

#[test]
fn the_permission_mode_of_a_user_record_is_kept_in_its_flags() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let lines = [
        r#"{"type":"user","sessionId":"s1","uuid":"u1","parentUuid":null,"cwd":"/p","version":"2.0.55","timestamp":"2025-11-02T09:00:00.000Z","permissionMode":"plan","message":{"role":"user","content":"plan the refactor first"}}"#,
        r#"{"type":"user","sessionId":"s1","uuid":"u2","parentUuid":"u1","cwd":"/p","version":"2.0.55","timestamp":"2025-11-02T09:01:00.000Z","message":{"role":"user","content":"no mode on this one"}}"#,
    ];
    std::fs::write(&path, lines.join("\n")).unwrap();
    let file = read_rollout(&path).unwrap();
    let modes: Vec<_> = file
        .records
        .iter()
        .filter(|record| record.response_item().is_some())
        .map(|record| record.flags.permission_mode)
        .collect();
    assert_eq!(
        modes,
        vec![Some(agentctx_protocol::PermissionMode::Plan), None]
    );
}

#[test]
fn a_tool_results_error_flag_survives_writing_and_reading_back() {
    let file = read_rollout(&fixture("claude_2x.jsonl")).unwrap();
    let success_of = |line: &agentctx_protocol::RolloutLine| match &line.item {
        agentctx_protocol::RolloutItem::ResponseItem(ResponseItem::FunctionCallOutput {
            output,
            ..
        }) => Some(output.success),
        _ => None,
    };
    let flags: Vec<Option<bool>> = file
        .records
        .iter()
        .filter_map(|record| success_of(&record.line))
        .collect();
    assert_eq!(flags, vec![Some(true), Some(true), Some(false)]);

    let written: Vec<String> = file
        .records
        .iter()
        .map(|record| serde_json::to_string(&record.line).unwrap())
        .collect();
    let read_back: Vec<Option<bool>> = written
        .iter()
        .map(|line| serde_json::from_str::<agentctx_protocol::RolloutLine>(line).unwrap())
        .filter_map(|line| success_of(&line))
        .collect();
    assert_eq!(read_back, flags);
    // Written again, the line is byte for byte the same.
    for line in &written {
        let again: agentctx_protocol::RolloutLine = serde_json::from_str(line).unwrap();
        assert_eq!(&serde_json::to_string(&again).unwrap(), line);
    }
}
