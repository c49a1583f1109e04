//! Small generated sessions for the memory tests: Codex rollouts written by the real recorder,
//! varied enough (commands, failures fixed later, files, preferences) to exercise extraction.

use std::path::Path;
use std::path::PathBuf;

use agentctx_protocol::ResponseItem;
use agentctx_protocol::SessionMetaLine;
use agentctx_rollout::RolloutRecorder;

/// Writes session number `n` under `root/sessions`; `n % 7 == 0` is a greeting with nothing to
/// remember. Returns its path.
pub(super) fn write_session(root: &Path, n: usize) -> PathBuf {
    let meta = SessionMetaLine {
        cwd: Some(format!("/src/project{}", n % 5)),
        source: Some(serde_json::json!("cli")),
        ..SessionMetaLine::default()
    };
    let items = if n.is_multiple_of(7) {
        vec![
            ResponseItem::user_text(format!("hello number {n}")),
            ResponseItem::assistant_text("Hi!"),
        ]
    } else {
        vec![
            ResponseItem::user_text(format!(
                "Fix bug {n} in `module{n}`. Always run the tests before you finish."
            )),
            ResponseItem::function_call("c1", "shell", r#"{"command":["cargo","test"]}"#),
            ResponseItem::function_call_output(
                "c1",
                format!("error[E0425]: cannot find value `v{n}`\nexit code: 101"),
            ),
            ResponseItem::function_call(
                "c2",
                "apply_patch",
                serde_json::json!({"input": format!("*** Begin Patch\n*** Update File: src/module{n}.rs\n@@\n-a\n+b\n*** End Patch")}).to_string(),
            ),
            ResponseItem::function_call_output("c2", "Success."),
            ResponseItem::function_call("c3", "shell", r#"{"command":["cargo","test"]}"#),
            ResponseItem::function_call_output("c3", "test result: ok. 9 passed"),
            ResponseItem::assistant_text(format!("Fixed bug {n}; the tests pass.")),
        ]
    };
    let mut recorder = RolloutRecorder::create(root, meta).unwrap();
    recorder.record_response_items(&items).unwrap();
    recorder.flush().unwrap();
    recorder.path().to_path_buf()
}

/// True for the sessions that have something to remember.
pub(super) fn remembered(n: usize) -> bool {
    !n.is_multiple_of(7)
}
