use std::path::Path;

use agentctx_rollout::RolloutFormat;
use agentctx_rollout::read_rollout;
use pretty_assertions::assert_eq;

use super::render;

#[test]
fn legacy_codex_rollout_maps_into_the_same_types() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex_legacy.jsonl");
    let file = read_rollout(&path).unwrap();
    assert_eq!(file.format, RolloutFormat::CodexLegacy);
    assert_eq!(file.lines, 12);
    assert_eq!(file.skipped, vec![]);
    assert_eq!(
        render::records(&file.records),
        vec![
            "L1 -- session_meta 5d0b6f0e-3a41-4f7c-9a52-1e8b2c4d6f70 - -",
            "L3 -- message/user: <user_instructions>⏎⏎Always run cargo fmt.⏎⏎</us…",
            "L4 -- message/user: <environment_context>⏎  <cwd>/home/mira/src/tall…",
            "L5 -- message/user: add a --since flag to the report command",
            "L7 -- reasoning: summary=1 content=0 encrypted=false",
            "L8 -- local_shell_call",
            "L9 -- function_call_output call_c1 success=None text: {\"output\":\"#[derive(Parser)]\\nstruct Report { #[…",
            "L11 -- message/assistant: I added `--since <DATE>` to `report`; rows befor…",
        ]
    );
    assert_eq!(file.ignored.get("record_type:state"), Some(&4));
    assert_eq!(
        file.session_meta().unwrap().timestamp.as_deref(),
        Some("2025-06-03T14:20:11.512Z")
    );
}
