use std::path::Path;

use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

use super::*;

#[test]
fn render_fills_each_placeholder_once_and_never_expands_values() {
    let out = render(
        "a {{ x }} b {{y}} c {{ unknown }}",
        &[("x", "{{ y }}"), ("y", "Y")],
    );
    assert_eq!(out, "a {{ y }} b Y c {{ unknown }}");
}

#[test]
fn stage_one_system_prompt() {
    insta::assert_snapshot!(STAGE_ONE_SYSTEM);
}

#[test]
fn stage_one_input_keeps_what_memory_needs() {
    let items = vec![
        ResponseItem::Message {
            id: None,
            role: "developer".to_string(),
            content: vec![agentctx_protocol::ContentItem::InputText {
                text: "harness instructions".to_string(),
            }],
            extra: Default::default(),
        },
        ResponseItem::user_text("Fix the login test"),
        ResponseItem::function_call("c1", "shell", r#"{"command":["cargo","test"]}"#),
        ResponseItem::function_call_output("c1", "test result: ok"),
        ResponseItem::assistant_text("Fixed."),
    ];
    let input = stage_one_input(
        Path::new("/home/u/.codex/sessions/rollout.jsonl"),
        Some("/src/app"),
        &items,
        DEFAULT_STAGE_ONE_ROLLOUT_TOKEN_LIMIT,
    );
    assert!(!input.contains("harness instructions"));
    insta::assert_snapshot!(input);
}

#[test]
fn stage_one_input_is_truncated_to_the_budget() {
    let long = "x".repeat(100_000);
    let items = vec![ResponseItem::user_text(&long)];
    let input = stage_one_input(Path::new("/r.jsonl"), None, &items, 1_000);
    let template = CalibratedTokenEstimator.estimate_text(STAGE_ONE_INPUT);
    let estimate = CalibratedTokenEstimator.estimate_text(&input);
    assert!(estimate <= template + 1_000, "{estimate}");
    assert!(input.contains("tokens truncated"));
}

#[test]
fn a_text_dense_in_tokens_is_cut_by_its_estimate_not_its_bytes() {
    // 40,000 bytes: 10,000 tokens at four bytes a token, 29,000 by the estimator.
    let numbers = "7 ".repeat(20_000);
    let cut = truncate_to_estimated_tokens(&numbers, 5_000);
    let estimate = CalibratedTokenEstimator.estimate_text(&cut);
    assert!((4_000..=5_000).contains(&estimate), "{estimate}");
    assert!(cut.starts_with("7 7") && cut.ends_with("7 7 "), "{cut}");
    assert_eq!(truncate_to_estimated_tokens("short", 5_000), "short");
}

#[test]
fn consolidation_prompt_template() {
    insta::assert_snapshot!(CONSOLIDATION);
}

#[test]
fn read_path_instructions() {
    let text = memory_instructions_for(
        Path::new("/home/u/.agentctx/memories"),
        "## User Profile\nPrefers small commits.\n",
    )
    .unwrap();
    insta::assert_snapshot!(text);
}

#[test]
fn a_blank_summary_injects_nothing_and_a_long_one_is_truncated() {
    let root = Path::new("/m");
    assert_eq!(memory_instructions_for(root, "  \n "), None);
    let long = "word ".repeat(10_000);
    let text = memory_instructions_for(root, &long).unwrap();
    assert!(text.contains("tokens truncated"));
    assert!(text.len() < READ_PATH.len() + MEMORY_SUMMARY_TOKEN_LIMIT * 4 + 200);
}

#[test]
fn memory_instructions_read_the_summary_from_the_home() {
    let home = tempfile::tempdir().unwrap();
    assert_eq!(memory_instructions(home.path()).unwrap(), None);
    let root = home.path().join("memories");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("memory_summary.md"),
        "## User Profile\nlikes tests\n",
    )
    .unwrap();
    let text = memory_instructions(home.path()).unwrap().unwrap();
    assert!(text.contains("likes tests"));
}

#[test]
fn rendered_consolidation_prompt() {
    use std::path::PathBuf;

    use crate::consolidator::CONSOLIDATION_REQUEST;
    use crate::consolidator::ConsolidationInput;
    use crate::consolidator::ConsolidationMode;
    use crate::consolidator::consolidation_prompt;
    use crate::state_records::Stage1Output;
    use crate::state_records::StoredOutput;
    use crate::state_records::ThreadRecord;

    let output = StoredOutput {
        thread: ThreadRecord {
            id: "0194f5a6-86d8-7c3d-8a2b-1234abcd5678".to_string(),
            rollout_path: PathBuf::from("/s/rollout.jsonl"),
            source: Some("cli".to_string()),
            cwd: Some("/src/app".to_string()),
            git_branch: None,
            updated_at: 1_739_288_119,
        },
        output: Stage1Output {
            raw_memory: "# Fixed the login test\n## Task: fix login\nOutcome: success\n"
                .to_string(),
            rollout_summary: "Fixed it.".to_string(),
            rollout_slug: Some("fix_login".to_string()),
        },
        source_updated_at: 1_739_288_119,
        generated_at: 1_739_288_200,
        seq: 3,
    };
    let input = ConsolidationInput {
        mode: ConsolidationMode::Incremental,
        memory_root: PathBuf::from("/home/u/.agentctx/memories"),
        new_outputs: vec![output.clone()],
        all_outputs: vec![output],
        current_memory: Some("# Task Group: app\nscope: /src/app\n".to_string()),
        current_summary: None,
    };
    let prompt = consolidation_prompt(&input);
    assert!(prompt.contains("Mode: INCREMENTAL"));
    insta::assert_snapshot!(format!(
        "{prompt}\n--- request ---\n{CONSOLIDATION_REQUEST}"
    ));
}
