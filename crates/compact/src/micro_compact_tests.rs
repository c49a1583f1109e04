use agentctx_context::ApproxTokenEstimator;
use agentctx_context::ContextManager;
use agentctx_protocol::ExtraFields;
use pretty_assertions::assert_eq;

use super::*;

const EST: ApproxTokenEstimator = ApproxTokenEstimator;

/// A tool output of about `tokens` tokens, different for each `seed`.
fn text_of(tokens: usize, seed: &str) -> String {
    let line = format!("{seed}: some output line of the tool\n");
    line.repeat((tokens * 4).div_ceil(line.len()))
}

fn call(id: &str, name: &str, arguments: &str) -> ResponseItem {
    ResponseItem::function_call(id, name, arguments)
}

fn output(id: &str, text: impl Into<String>) -> ResponseItem {
    ResponseItem::function_call_output(id, text)
}

fn read(id: &str, path: &str, tokens: usize) -> [ResponseItem; 2] {
    [
        call(id, "Read", &format!(r#"{{"file_path":"{path}"}}"#)),
        output(id, text_of(tokens, id)),
    ]
}

fn bash(id: &str, command: &str, tokens: usize) -> [ResponseItem; 2] {
    [
        call(id, "Bash", &format!(r#"{{"command":"{command}"}}"#)),
        output(id, text_of(tokens, id)),
    ]
}

/// A finished first turn with eight 7,000-token results, then a second turn with one result.
fn long_history() -> Vec<ResponseItem> {
    let mut history = vec![ResponseItem::user_text("look around the project")];
    for n in 1..=8 {
        history.extend(bash(&format!("call_{n}"), &format!("cat part{n}"), 7_000));
    }
    history.push(ResponseItem::assistant_text("I looked."));
    history.push(ResponseItem::user_text("now fix the bug"));
    history.extend(bash("call_9", "cargo test", 7_000));
    history
}

fn config() -> CompactConfig {
    CompactConfig::default()
}

/// [`micro_compact`] on `history`, kept as a vector for the assertions: the items go into a
/// history manager as they are (measured, not truncated) and come back as it left them.
fn micro(
    history: &mut Vec<ResponseItem>,
    config: &CompactConfig,
    mode: CompactionMode,
    home: &Path,
) -> Result<MicroCompactResult, MicroCompactError> {
    let mut manager = ContextManager::new();
    manager.replace(std::mem::take(history));
    let result = micro_compact(
        &mut manager,
        &mut MicroCompactIndex::new(),
        config,
        mode,
        home,
        MicroPersistence::Write,
    );
    *history = manager.raw_items().to_vec();
    result
}

fn run(history: &mut Vec<ResponseItem>, home: &Path) -> MicroCompactResult {
    micro(history, &config(), CompactionMode::Normal, home).unwrap()
}

fn applied(result: MicroCompactResult) -> MicroCompactOutcome {
    match result {
        MicroCompactResult::Applied(outcome) => outcome,
        MicroCompactResult::Skipped(skip) => panic!("expected micro-compaction, got {skip:?}"),
    }
}

fn output_text_at(history: &[ResponseItem], call_id: &str) -> String {
    history
        .iter()
        .find_map(|item| match item {
            ResponseItem::FunctionCallOutput {
                call_id: id,
                output,
                ..
            } if id == call_id => Some(output.text_content()),
            _ => None,
        })
        .unwrap()
}

fn is_cleared(history: &[ResponseItem], call_id: &str) -> bool {
    is_cleared_output(&output_text_at(history, call_id))
}

/// One line per tool output: its call id and its first line (the home path redacted).
fn render_outputs(history: &[ResponseItem], home: &Path) -> String {
    history
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            } => {
                let text = output.text_content();
                let shown = if is_cleared_output(&text) {
                    text.replace(&home.display().to_string(), "<home>")
                } else {
                    format!("<{} bytes of output>", text.len())
                };
                Some(format!("{call_id}: {shown}"))
            }
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn old_results_are_cleared_and_the_three_most_recent_kept() {
    let home = tempfile::tempdir().unwrap();
    let mut history = long_history();
    let outcome = applied(run(&mut history, home.path()));

    // 9 results of 7,000 tokens = 63,000; the three newest stay; clearing stops once at most
    // 40,000 tokens of results remain: call_1 .. call_4 go.
    assert_eq!(
        outcome.cleared_call_ids,
        ["call_1", "call_2", "call_3", "call_4"]
    );
    assert!(outcome.tokens_saved >= 20_000, "{}", outcome.tokens_saved);
    for kept in ["call_5", "call_6", "call_7", "call_8", "call_9"] {
        assert!(!is_cleared(&history, kept), "{kept}");
    }
    insta::assert_snapshot!("long_history_after", render_outputs(&history, home.path()));
}

#[test]
fn large_results_are_persisted_and_replaced_with_the_marker() {
    let home = tempfile::tempdir().unwrap();
    let original = long_history();
    let mut history = original.clone();
    let outcome = applied(run(&mut history, home.path()));

    let path = home.path().join("tool-results").join("call_1.txt");
    assert_eq!(outcome.persisted_paths.first(), Some(&path));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        output_text_at(&original, "call_1")
    );
    assert_eq!(
        output_text_at(&history, "call_1"),
        format!(
            "<persisted-output path=\"{}\" original_size=\"{}\" />\n{}\n{}\n[Old tool result content cleared]",
            path.display(),
            output_text_at(&original, "call_1").len(),
            crate::persisted_output::output_digest(&output_text_at(&original, "call_1")),
            crate::persisted_output::PERSISTED_OUTPUT_HINT
        )
    );
}

#[test]
fn small_results_are_cleared_without_a_file() {
    let home = tempfile::tempdir().unwrap();
    let mut history = vec![ResponseItem::user_text("go")];
    for n in 1..=80 {
        history.extend(bash(&format!("c{n}"), &format!("ls {n}"), 900));
    }
    history.push(ResponseItem::user_text("next"));
    let outcome = applied(run(&mut history, home.path()));
    assert!(outcome.persisted_paths.is_empty());
    assert_eq!(
        output_text_at(&history, "c1"),
        "[Old tool result content cleared]"
    );
    assert!(!home.path().join("tool-results").exists());
}

#[test]
fn savings_below_twenty_thousand_leave_the_history_untouched() {
    let home = tempfile::tempdir().unwrap();
    let mut history = vec![ResponseItem::user_text("go")];
    for n in 1..=9 {
        history.extend(bash(&format!("c{n}"), &format!("ls {n}"), 5_000));
    }
    history.push(ResponseItem::user_text("next"));
    let before = history.clone();
    // 45,000 tokens of results: clearing down to 40,000 saves about 5,000.
    let result = run(&mut history, home.path());
    let MicroCompactResult::Skipped(MicroCompactSkip::BelowMinimumSavings { would_save }) = result
    else {
        panic!("expected a skip, got {result:?}");
    };
    assert!(would_save > 0 && would_save < 20_000, "{would_save}");
    assert_eq!(history, before);
    assert!(!home.path().join("tool-results").exists());
}

#[test]
fn the_latest_read_of_a_path_edits_writes_and_errors_are_never_cleared() {
    let home = tempfile::tempdir().unwrap();
    let mut history = vec![ResponseItem::user_text("go")];
    history.extend(read("r_old", "/src/lib.rs", 25_000));
    history.extend(read("r_latest", "/src/lib.rs", 8_000));
    history.extend(read("r_other", "/src/other.rs", 8_000));
    history.push(call("e1", "Edit", r#"{"file_path":"/src/lib.rs"}"#));
    history.push(output("e1", text_of(8_000, "edit")));
    history.push(call("w1", "Write", r#"{"file_path":"/src/new.rs"}"#));
    history.push(output("w1", text_of(8_000, "write")));
    history.push(call("fail", "Bash", r#"{"command":"make"}"#));
    history.push(ResponseItem::FunctionCallOutput {
        call_id: "fail".to_string(),
        output: FunctionCallOutputPayload {
            body: FunctionCallOutputBody::Text(text_of(8_000, "error")),
            success: Some(false),
        },
        extra: ExtraFields::default(),
    });
    history.extend(bash("codex_fail", "cargo build", 0));
    if let Some(ResponseItem::FunctionCallOutput { output, .. }) = history.last_mut() {
        output.body = FunctionCallOutputBody::Text(format!(
            "Exit code: 101\nWall time: 3 seconds\nOutput:\n{}",
            text_of(8_000, "rustc")
        ));
    }
    history.extend(bash("b1", "ls", 8_000));
    history.extend(bash("b2", "ls -l", 8_000));
    history.extend(bash("b3", "ls -la", 8_000));
    history.push(ResponseItem::user_text("next"));

    let mut config = config();
    config.micro.target_tool_result_tokens = 0;
    let outcome = match micro(&mut history, &config, CompactionMode::Normal, home.path()).unwrap() {
        MicroCompactResult::Applied(outcome) => outcome,
        MicroCompactResult::Skipped(skip) => panic!("{skip:?}"),
    };
    assert_eq!(outcome.cleared_call_ids, ["r_old"]);
    for kept in ["r_latest", "r_other", "e1", "w1", "fail", "codex_fail"] {
        assert!(!is_cleared(&history, kept), "{kept}");
    }
}

/// One user message, then `calls` shell commands with outputs of about `tokens` tokens and a
/// reminder in the user role: an agentic session where one prompt drives every request.
fn one_prompt_session(calls: usize, tokens: usize) -> Vec<ResponseItem> {
    let mut history = vec![ResponseItem::user_text("fix the failing tests")];
    for n in 1..=calls {
        history.extend(bash(&format!("c{n}"), &format!("step {n}"), tokens));
    }
    // A reminder in the user role; it is not a message the user typed either.
    history.push(ResponseItem::user_text(
        "<system-reminder>\nsomething changed\n</system-reminder>",
    ));
    history
}

#[test]
fn one_prompt_driving_many_tool_calls_clears_all_but_the_three_newest() {
    // The turn boundary is no reason to keep a result: every result here follows the only
    // message the user typed, and all but the three newest go.
    let home = tempfile::tempdir().unwrap();
    let mut history = one_prompt_session(12, 8_000);
    let mut config = config();
    config.micro.target_tool_result_tokens = 0;
    let outcome =
        applied(micro(&mut history, &config, CompactionMode::Normal, home.path()).unwrap());
    let cleared: Vec<String> = (1..=9).map(|n| format!("c{n}")).collect();
    assert_eq!(outcome.cleared_call_ids, cleared);
    assert_eq!(outcome.cleared_count(), 9);
    assert_eq!(outcome.persisted_paths.len(), 9);
    for kept in ["c10", "c11", "c12"] {
        assert!(!is_cleared(&history, kept), "{kept}");
    }
    insta::assert_snapshot!(
        "one_prompt_session_after",
        render_outputs(&history, home.path())
    );

    // Aggressive mode clears the same results under the default settings.
    let mut aggressive = one_prompt_session(12, 8_000);
    let outcome = applied(
        micro(
            &mut aggressive,
            &CompactConfig::default(),
            CompactionMode::Aggressive,
            home.path(),
        )
        .unwrap(),
    );
    assert_eq!(outcome.cleared_call_ids, cleared);
    assert_eq!(aggressive, history);
}

#[test]
fn one_prompt_session_is_cleared_down_to_the_target_under_the_defaults() {
    // 10 results of 7,000 tokens after the only user message: clearing the oldest stops once at
    // most 40,000 tokens of results remain, five of them (the old rule cleared none: all were
    // in the current turn).
    let home = tempfile::tempdir().unwrap();
    let mut history = one_prompt_session(10, 7_000);
    let outcome = applied(run(&mut history, home.path()));
    assert_eq!(outcome.cleared_call_ids, ["c1", "c2", "c3", "c4", "c5"]);
    assert!(outcome.tokens_saved >= 20_000, "{}", outcome.tokens_saved);
    for kept in ["c6", "c7", "c8", "c9", "c10"] {
        assert!(!is_cleared(&history, kept), "{kept}");
    }
}

#[test]
fn a_history_of_three_results_or_fewer_has_nothing_to_clear() {
    // The three newest results are always kept, whatever their size.
    let home = tempfile::tempdir().unwrap();
    let mut history = one_prompt_session(3, 8_000);
    let result = micro(
        &mut history,
        &CompactConfig::default(),
        CompactionMode::Aggressive,
        home.path(),
    )
    .unwrap();
    assert_eq!(
        result,
        MicroCompactResult::Skipped(MicroCompactSkip::NothingToClear)
    );
}

#[test]
fn superseded_results_go_first() {
    let home = tempfile::tempdir().unwrap();
    let mut history = vec![ResponseItem::user_text("go")];
    history.extend(bash("b_once", "cat a", 12_000));
    history.extend(read("r_first", "/x.rs", 12_000));
    history.extend(bash("b_twice_1", "cargo test", 12_000));
    history.extend(read("r_second", "/x.rs", 12_000));
    history.extend(bash("b_twice_2", "cargo test", 12_000));
    for n in 1..=3 {
        history.extend(bash(&format!("k{n}"), &format!("echo {n}"), 100));
    }
    history.push(ResponseItem::user_text("next"));
    // 60,300 tokens of results; two clears bring it under 40,000.
    let outcome = applied(run(&mut history, home.path()));
    assert_eq!(outcome.cleared_call_ids, ["r_first", "b_twice_1"]);
    assert!(!is_cleared(&history, "b_once"));
}

#[test]
fn running_twice_changes_nothing_more() {
    let home = tempfile::tempdir().unwrap();
    let mut history = long_history();
    applied(run(&mut history, home.path()));
    let once = serde_json::to_string(&history).unwrap();
    let second = run(&mut history, home.path());
    assert!(
        matches!(second, MicroCompactResult::Skipped(_)),
        "{second:?}"
    );
    assert_eq!(serde_json::to_string(&history).unwrap(), once);

    // Aggressive mode on the result clears the rest, and then it too is a fixed point.
    micro(
        &mut history,
        &config(),
        CompactionMode::Aggressive,
        home.path(),
    )
    .unwrap();
    let aggressive = serde_json::to_string(&history).unwrap();
    let again = micro(
        &mut history,
        &config(),
        CompactionMode::Aggressive,
        home.path(),
    )
    .unwrap();
    assert_eq!(
        again,
        MicroCompactResult::Skipped(MicroCompactSkip::NothingToClear)
    );
    assert_eq!(serde_json::to_string(&history).unwrap(), aggressive);
}

#[test]
fn the_same_history_compacts_to_the_same_bytes() {
    let home = tempfile::tempdir().unwrap();
    let mut first = long_history();
    let mut second = long_history();
    applied(run(&mut first, home.path()));
    applied(run(&mut second, home.path()));
    assert_eq!(
        serde_json::to_vec(&first).unwrap(),
        serde_json::to_vec(&second).unwrap()
    );
}

#[test]
fn aggressive_mode_clears_every_eligible_result_whatever_it_saves() {
    let home = tempfile::tempdir().unwrap();
    let mut history = vec![ResponseItem::user_text("go")];
    for n in 1..=5 {
        history.extend(bash(&format!("c{n}"), &format!("ls {n}"), 2_000));
    }
    history.push(ResponseItem::user_text("next"));
    let outcome = applied(
        micro(
            &mut history,
            &config(),
            CompactionMode::Aggressive,
            home.path(),
        )
        .unwrap(),
    );
    assert_eq!(outcome.cleared_call_ids, ["c1", "c2"]);
}

#[test]
fn switched_off_micro_compaction_does_nothing() {
    let home = tempfile::tempdir().unwrap();
    let mut history = long_history();
    let before = history.clone();
    let mut config = config();
    config
        .apply_env_vars([("AGENTCTX_DISABLE_MICROCOMPACT", "1")])
        .unwrap();
    let result = micro(
        &mut history,
        &config,
        CompactionMode::Aggressive,
        home.path(),
    )
    .unwrap();
    assert_eq!(
        result,
        MicroCompactResult::Skipped(MicroCompactSkip::Disabled)
    );
    assert_eq!(history, before);
}

#[test]
fn a_file_that_cannot_be_written_leaves_the_history_untouched() {
    let home = tempfile::tempdir().unwrap();
    // `tool-results` is a file, so nothing can be written under it.
    std::fs::write(home.path().join("tool-results"), "in the way").unwrap();
    let mut history = long_history();
    let before = history.clone();
    let error = micro(&mut history, &config(), CompactionMode::Normal, home.path()).unwrap_err();
    assert_eq!(error.call_id, "call_1");
    assert_eq!(history, before);
}

#[test]
fn codex_local_shell_and_custom_tool_results_are_handled() {
    let home = tempfile::tempdir().unwrap();
    let mut history = vec![ResponseItem::user_text("go")];
    for n in 1..=6 {
        let id = format!("ls{n}");
        history.push(ResponseItem::LocalShellCall {
            id: None,
            call_id: Some(id.clone()),
            status: Some("completed".to_string()),
            action: serde_json::json!({"type": "exec", "command": ["cat", format!("f{n}")]}),
            extra: ExtraFields::default(),
        });
        history.push(output(&id, text_of(9_000, &id)));
    }
    history.push(ResponseItem::CustomToolCall {
        id: None,
        status: None,
        call_id: "patch".to_string(),
        name: "apply_patch".to_string(),
        input: "*** Begin Patch".to_string(),
        extra: ExtraFields::default(),
    });
    history.push(ResponseItem::CustomToolCallOutput {
        call_id: "patch".to_string(),
        output: FunctionCallOutputPayload::text(text_of(9_000, "patch")),
        extra: ExtraFields::default(),
    });
    history.push(ResponseItem::user_text("next"));
    let outcome = applied(run(&mut history, home.path()));
    assert_eq!(outcome.cleared_call_ids, ["ls1", "ls2", "ls3"]);
    assert!(
        outcome
            .persisted_paths
            .iter()
            .all(|path| path.starts_with(home.path().join("tool-results")))
    );
}

/// A Codex code-mode `exec` call as a rollout records it: a `custom_tool_call` whose input is
/// JavaScript (an optional `// @exec:` pragma first), answered by a `custom_tool_call_output`
/// of content items led by the script's status header (codex-rs
/// `core/src/tools/code_mode/mod.rs`, `prepend_script_status`).
fn code_mode_exec(id: &str, status: &str, tokens: usize) -> [ResponseItem; 2] {
    let output: FunctionCallOutputPayload = serde_json::from_value(serde_json::json!([
        {"type": "input_text", "text": format!("{status}\nWall time 0.4 seconds\nOutput:\n")},
        {"type": "input_text", "text": text_of(tokens, id)},
    ]))
    .unwrap();
    [
        ResponseItem::CustomToolCall {
            id: None,
            status: Some("completed".to_string()),
            call_id: id.to_string(),
            name: "exec".to_string(),
            input: format!(
                "// @exec: {{\"yield_time_ms\": 10000}}\nconst r = await tools.exec_command({{cmd: \"cat part_{id}.txt\"}});\ntext(r.output);"
            ),
            extra: ExtraFields::default(),
        },
        ResponseItem::CustomToolCallOutput {
            call_id: id.to_string(),
            output,
            extra: ExtraFields::default(),
        },
    ]
}

#[test]
fn codex_code_mode_exec_results_are_cleared_and_failed_scripts_kept() {
    let home = tempfile::tempdir().unwrap();
    let mut history = vec![ResponseItem::user_text("go")];
    history.extend(code_mode_exec("x1", "Script completed", 9_000));
    history.extend(code_mode_exec("x2", "Script failed", 9_000));
    history.extend(code_mode_exec("x3", "Script completed", 9_000));
    history.extend(code_mode_exec("x4", "Script running with cell ID 7", 9_000));
    history.push(call("w1", "wait", r#"{"cell_id":"7"}"#));
    history.push(output("w1", text_of(9_000, "w1")));
    for n in 1..=3 {
        history.extend(bash(&format!("k{n}"), &format!("echo {n}"), 100));
    }
    let mut config = config();
    config.micro.target_tool_result_tokens = 0;
    let outcome =
        applied(micro(&mut history, &config, CompactionMode::Normal, home.path()).unwrap());
    // The failed script is an error: kept, as a failed shell command is.
    assert_eq!(outcome.cleared_call_ids, ["x1", "x3", "x4", "w1"]);
    let cleared_exec = history
        .iter()
        .find_map(|item| match item {
            ResponseItem::CustomToolCallOutput {
                call_id, output, ..
            } if call_id == "x1" => Some(output.text_content()),
            _ => None,
        })
        .unwrap();
    assert!(is_cleared_output(&cleared_exec), "{cleared_exec}");
}

#[test]
fn a_hostile_call_id_is_persisted_inside_the_home() {
    let home = tempfile::tempdir().unwrap();
    let mut history = vec![ResponseItem::user_text("go")];
    history.extend(bash("../../escape", "cat big", 50_000));
    for n in 1..=3 {
        history.extend(bash(&format!("k{n}"), &format!("echo {n}"), 10));
    }
    history.push(ResponseItem::user_text("next"));
    let outcome = applied(run(&mut history, home.path()));
    let [path] = outcome.persisted_paths.as_slice() else {
        panic!("{outcome:?}");
    };
    assert_eq!(
        path.parent(),
        Some(home.path().join("tool-results").as_path())
    );
    assert!(path.exists());
}

#[test]
fn the_outcome_becomes_the_loop_event() {
    let outcome = MicroCompactOutcome {
        tokens_saved: 30_000,
        cleared_call_ids: vec!["a".to_string(), "b".to_string()],
        persisted_paths: Vec::new(),
    };
    assert_eq!(outcome.cleared_count(), 2);
    assert_eq!(
        outcome.loop_event(),
        LoopEvent::MicroCompactionApplied { removed_results: 2 }
    );
}

#[test]
fn results_smaller_than_their_replacement_are_left_alone() {
    let home = tempfile::tempdir().unwrap();
    let mut history = vec![ResponseItem::user_text("go")];
    history.extend(bash("big", "cat big", 50_000));
    history.push(call("tiny", "Bash", r#"{"command":"true"}"#));
    history.push(output("tiny", "ok"));
    for n in 1..=3 {
        history.extend(bash(&format!("k{n}"), &format!("echo {n}"), 10));
    }
    history.push(ResponseItem::user_text("next"));
    let outcome = applied(
        micro(
            &mut history,
            &config(),
            CompactionMode::Aggressive,
            home.path(),
        )
        .unwrap(),
    );
    assert_eq!(outcome.cleared_call_ids, ["big"]);
    assert_eq!(output_text_at(&history, "tiny"), "ok");
}

/// A history with every kind of result the decision weighs: superseded and latest reads, large
/// and small results, an error, a custom tool output with extra fields and a success flag.
fn varied_history() -> Vec<ResponseItem> {
    let mut history = vec![ResponseItem::user_text("look around the project")];
    history.extend(read("r1", "/src/a.rs", 9_000));
    history.extend(read("r2", "/src/b.rs", 300));
    history.extend(read("r3", "/src/a.rs", 9_000));
    history.extend(bash("b1", "cargo test", 12_000));
    history.push(call("e1", "Bash", r#"{"command":"false"}"#));
    history.push(ResponseItem::FunctionCallOutput {
        call_id: "e1".to_string(),
        output: FunctionCallOutputPayload {
            body: FunctionCallOutputBody::Text("Exit code: 1\nfailed".to_string()),
            success: Some(false),
        },
        extra: ExtraFields::new(),
    });
    history.push(ResponseItem::CustomToolCall {
        id: None,
        status: None,
        call_id: "g1".to_string(),
        name: "Grep".to_string(),
        input: "fn main".to_string(),
        extra: ExtraFields::new(),
    });
    let mut extra = ExtraFields::new();
    extra.insert("id".to_string(), serde_json::json!("ctco_1"));
    history.push(ResponseItem::CustomToolCallOutput {
        call_id: "g1".to_string(),
        output: FunctionCallOutputPayload {
            body: FunctionCallOutputBody::Text(text_of(8_000, "g1")),
            success: Some(true),
        },
        extra,
    });
    for n in 1..=5 {
        history.extend(bash(&format!("k{n}"), &format!("cat part{n}"), 7_000));
    }
    history.push(ResponseItem::user_text("now fix the bug"));
    history.extend(bash("now", "cargo test", 7_000));
    history
}

#[test]
fn known_sizes_give_the_plan_a_full_measure_gives() {
    let home = tempfile::tempdir().unwrap();
    let history = varied_history();
    let sizes: Vec<ItemSize> = history
        .iter()
        .map(|item| EST.estimate_item_size(item))
        .collect();
    for mode in [CompactionMode::Normal, CompactionMode::Aggressive] {
        let measured = plan_micro_compact(
            &history,
            &ToolClasses::new(),
            &config().micro,
            mode,
            home.path(),
            &EST,
        );
        assert!(!measured.clears.is_empty());
        let sized = plan_micro_compact_sized(
            &history,
            &sizes,
            &ToolClasses::new(),
            &config().micro,
            mode,
            home.path(),
            &EST,
        );
        assert_eq!(sized, measured);
        // Items without a known size are measured.
        let partly = plan_micro_compact_sized(
            &history,
            sizes.get(..sizes.len() / 2).unwrap(),
            &ToolClasses::new(),
            &config().micro,
            mode,
            home.path(),
            &EST,
        );
        assert_eq!(partly, measured);
    }
}

#[test]
fn known_sizes_are_trusted_as_given() {
    // The sizes are the caller's measure (the context manager's): the decision weighs them.
    let home = tempfile::tempdir().unwrap();
    let history = long_history();
    let tiny = vec![
        ItemSize {
            bytes: 4,
            tokens: 1,
        };
        history.len()
    ];
    let plan = plan_micro_compact_sized(
        &history,
        &tiny,
        &ToolClasses::new(),
        &config().micro,
        CompactionMode::Normal,
        home.path(),
        &EST,
    );
    assert_eq!(plan.clears, Vec::new());
    assert_eq!(plan.tokens_saved, 0);
}

#[test]
fn the_replacement_is_built_as_a_clone_with_its_body_replaced() {
    for item in varied_history()
        .into_iter()
        .filter(ResponseItem::is_tool_output)
    {
        let mut history = ContextManager::new();
        history.replace(vec![item.clone()]);
        assert_eq!(
            history.replace_tool_output_texts([(0, "[cleared]".to_string())]),
            1
        );
        assert_eq!(
            with_output_text(&item, "[cleared]").as_ref(),
            history.raw_items().first()
        );
    }
    let message = ResponseItem::user_text("not an output");
    assert_eq!(with_output_text(&message, "[cleared]"), None);
    assert_eq!(output_text(&message), None);
}

#[test]
fn the_decision_answers_as_the_whole_plan_does_and_stops_early_when_it_can() {
    let home = tempfile::tempdir().unwrap();
    let history = varied_history();
    let sizes: Vec<ItemSize> = history
        .iter()
        .map(|item| EST.estimate_item_size(item))
        .collect();
    let mut stopped_early = 0;
    // Least savings from nothing to more than the history holds, so the answer is yes for
    // some and no for others, in both modes.
    for min_savings_tokens in [
        0, 1, 5_000, 9_000, 20_000, 30_000, 45_000, 60_000, 1_000_000,
    ] {
        for target_tool_result_tokens in [0, 10_000, 40_000] {
            let mut micro = config().micro;
            micro.min_savings_tokens = min_savings_tokens;
            micro.target_tool_result_tokens = target_tool_result_tokens;
            for mode in [CompactionMode::Normal, CompactionMode::Aggressive] {
                let whole = plan_micro_compact_sized(
                    &history,
                    &sizes,
                    &ToolClasses::new(),
                    &micro,
                    mode,
                    home.path(),
                    &EST,
                );
                let decision = decide_micro_compact(
                    &history,
                    &sizes,
                    &ToolClasses::new(),
                    &micro,
                    mode,
                    home.path(),
                    &EST,
                );
                let case = format!(
                    "min {min_savings_tokens}, target {target_tool_result_tokens}, {mode:?}"
                );
                assert_eq!(decision.worthwhile, whole.worthwhile, "{case}");
                assert!(decision.planned_clears <= whole.clears.len(), "{case}");
                assert!(decision.tokens_saved <= whole.tokens_saved, "{case}");
                if !decision.worthwhile {
                    // A no is only known once every clear was weighed.
                    assert_eq!(decision.planned_clears, whole.clears.len(), "{case}");
                    assert_eq!(decision.tokens_saved, whole.tokens_saved, "{case}");
                }
                if decision.planned_clears < whole.clears.len() {
                    stopped_early += 1;
                }
            }
        }
    }
    assert!(
        stopped_early > 0,
        "the decision never stopped before the whole plan"
    );
}

#[test]
fn a_read_is_keyed_by_its_path_unless_the_path_holds_an_escape() {
    assert_eq!(read_path(r#"{"file_path":"/src/a.rs"}"#), Some("/src/a.rs"));
    assert_eq!(
        read_path(r#"{"path":"/src/b.rs","limit":20}"#),
        Some("/src/b.rs")
    );
    assert_eq!(
        read_path(r#"{"offset":3,"file_path":"/src/a.rs","extra":{"file_path":"x"}}"#),
        Some("/src/a.rs")
    );
    assert_eq!(read_path(r#"{"file_path":"/src/a \"b\".rs"}"#), None);
    assert_eq!(read_path(r#"{"limit":20}"#), None);
    assert_eq!(read_path("not json"), None);
}

#[test]
fn markers_only_clears_the_same_bytes_and_writes_nothing() {
    let written = tempfile::tempdir().unwrap();
    let mut persisted = long_history();
    applied(run(&mut persisted, written.path()));

    let mut manager = ContextManager::new();
    manager.replace(long_history());
    let outcome = applied(
        micro_compact(
            &mut manager,
            &mut MicroCompactIndex::new(),
            &config(),
            CompactionMode::Normal,
            written.path(),
            MicroPersistence::MarkersOnly,
        )
        .unwrap(),
    );
    assert_eq!(manager.raw_items(), persisted.as_slice());
    assert_eq!(
        outcome.cleared_call_ids,
        ["call_1", "call_2", "call_3", "call_4"]
    );
    assert_eq!(outcome.persisted_paths, Vec::<PathBuf>::new());
    // The files in the home are the first run's: the second wrote none.
    let files = std::fs::read_dir(written.path().join("tool-results"))
        .unwrap()
        .count();
    assert_eq!(files, 4);
}

#[test]
fn the_history_is_cleared_in_place_and_the_saving_is_its_new_estimate() {
    let home = tempfile::tempdir().unwrap();
    let mut manager = ContextManager::new();
    manager.replace(long_history());
    let version = manager.history_version();
    let before = manager.estimate_token_count();
    let outcome = applied(
        micro_compact(
            &mut manager,
            &mut MicroCompactIndex::new(),
            &config(),
            CompactionMode::Normal,
            home.path(),
            MicroPersistence::MarkersOnly,
        )
        .unwrap(),
    );
    assert_eq!(manager.history_version(), version + 1);
    assert_eq!(
        outcome.tokens_saved,
        before - manager.estimate_token_count()
    );
    let fresh: Vec<ItemSize> = manager
        .raw_items()
        .iter()
        .map(|item| EST.estimate_item_size(item))
        .collect();
    assert_eq!(manager.item_sizes(), fresh.as_slice());
}

/// A session of agentctx's own tools: `grep`, `glob` and `bash_output` results of about
/// 9,000 tokens each, then three small ones.
fn agentctx_tools_session() -> Vec<ResponseItem> {
    let mut history = vec![ResponseItem::user_text("find the parser")];
    for (n, name) in ["grep", "glob", "bash_output", "grep", "glob"]
        .iter()
        .enumerate()
    {
        let id = format!("{name}_{n}");
        history.push(call(&id, name, &format!(r#"{{"pattern":"p{n}"}}"#)));
        history.push(output(&id, text_of(9_000, &id)));
    }
    for n in 1..=3 {
        history.extend(bash(&format!("k{n}"), &format!("echo {n}"), 100));
    }
    history
}

#[test]
fn a_host_s_own_tools_are_cleared_by_the_class_they_declare() {
    let home = tempfile::tempdir().unwrap();
    let run_with = |index: &mut MicroCompactIndex| {
        let mut manager = ContextManager::new();
        manager.replace(agentctx_tools_session());
        let result = micro_compact(
            &mut manager,
            index,
            &config(),
            CompactionMode::Aggressive,
            home.path(),
            MicroPersistence::MarkersOnly,
        )
        .unwrap();
        (result, manager)
    };

    // By the recorded names alone, none of them is a compactable tool.
    let (result, _) = run_with(&mut MicroCompactIndex::new());
    assert_eq!(
        result,
        MicroCompactResult::Skipped(MicroCompactSkip::NothingToClear)
    );

    let classes = ToolClasses::from_iter([
        ("grep".to_string(), Some(ToolClass::Search)),
        ("glob".to_string(), Some(ToolClass::List)),
        ("bash_output".to_string(), Some(ToolClass::Shell)),
    ]);
    let (result, manager) = run_with(&mut MicroCompactIndex::with_tool_classes(classes.clone()));
    let outcome = applied(result);
    assert_eq!(
        outcome.cleared_call_ids,
        ["grep_0", "glob_1", "bash_output_2", "grep_3", "glob_4"]
    );
    let plan = plan_micro_compact(
        &agentctx_tools_session(),
        &classes,
        &config().micro,
        CompactionMode::Aggressive,
        home.path(),
        &EST,
    );
    assert_eq!(plan.clears.len(), 5, "the fresh plan knows them too");
    assert!(is_cleared(manager.raw_items(), "grep_3"));
}

#[test]
fn after_clearing_the_index_goes_on_as_a_fresh_look_would() {
    let home = tempfile::tempdir().unwrap();
    let mut manager = ContextManager::new();
    manager.replace(one_prompt_session(10, 7_000));
    let mut index = MicroCompactIndex::new();
    let micro = |manager: &mut ContextManager, index: &mut MicroCompactIndex| {
        micro_compact(
            manager,
            index,
            &config(),
            CompactionMode::Normal,
            home.path(),
            MicroPersistence::MarkersOnly,
        )
        .unwrap()
    };
    applied(micro(&mut manager, &mut index));
    // Results keep coming: each decision of the kept index is a fresh look's.
    for n in 11..=30 {
        manager.record_items(
            bash(&format!("c{n}"), &format!("step {n}"), 7_000),
            agentctx_context::TruncationPolicy::Bytes(1_000_000),
        );
        let kept = micro(&mut manager.clone(), &mut index.clone());
        let fresh = micro(&mut manager.clone(), &mut MicroCompactIndex::new());
        assert_eq!(kept, fresh, "after c{n}");
        micro(&mut manager, &mut index);
    }
}
