use std::path::PathBuf;

use agentctx_protocol::ResponseItem;

use super::*;

fn thread() -> ThreadRecord {
    ThreadRecord {
        id: "019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8".to_string(),
        rollout_path: PathBuf::from("/s/rollout.jsonl"),
        source: Some("cli".to_string()),
        cwd: Some("/src/tally".to_string()),
        git_branch: Some("main".to_string()),
        updated_at: 1_700_000_000,
    }
}

#[test]
fn offline_raw_memory_and_summary() {
    let items = vec![
        ResponseItem::user_text(
            "Add a `--since` option to tally report. Always run clippy before you finish.",
        ),
        ResponseItem::function_call("c1", "shell", r#"{"command":["cargo","test"]}"#),
        ResponseItem::function_call_output(
            "c1",
            "error[E0425]: cannot find value `since`\nexit code: 101",
        ),
        ResponseItem::function_call(
            "c2",
            "apply_patch",
            r#"{"input":"*** Begin Patch\n*** Update File: src/cli.rs\n@@\n-a\n+b\n*** End Patch"}"#,
        ),
        ResponseItem::function_call_output("c2", "Success."),
        ResponseItem::function_call("c3", "shell", r#"{"command":["cargo","test"]}"#),
        ResponseItem::function_call_output("c3", "test result: ok. 9 passed"),
        ResponseItem::assistant_text(
            "I'll keep `parse_date` in src/dates.rs instead of duplicating it. The tests pass.",
        ),
    ];
    let output = extract_offline(&thread(), &items).unwrap();
    assert_eq!(
        output.rollout_slug.as_deref(),
        Some("add_a_since_option_to_tally")
    );
    insta::assert_snapshot!("offline_raw_memory", output.raw_memory);
    insta::assert_snapshot!("offline_rollout_summary", output.rollout_summary);
}

#[test]
fn nothing_done_and_nothing_stated_is_a_no_op() {
    let items = vec![
        ResponseItem::user_text("hello"),
        ResponseItem::assistant_text("Hi!"),
    ];
    assert_eq!(extract_offline(&thread(), &items), None);
    assert_eq!(extract_offline(&thread(), &[]), None);
    // A stated preference alone is worth remembering.
    let items = vec![ResponseItem::user_text("Never push to main directly.")];
    assert!(extract_offline(&thread(), &items).is_some());
}
