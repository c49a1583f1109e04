use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::json;

use super::CommandRun;
use super::ErrorNote;
use super::HistoryDigest;
use super::user_request_text;

fn shell(call_id: &str, command: &str) -> ResponseItem {
    ResponseItem::function_call(
        call_id,
        "shell_command",
        json!({"command": command, "workdir": "/repo"}).to_string(),
    )
}

fn patch(call_id: &str, body: &str) -> ResponseItem {
    serde_json::from_value(json!({
        "type": "custom_tool_call", "status": "completed", "call_id": call_id,
        "name": "apply_patch", "input": body,
    }))
    .unwrap()
}

fn custom_output(call_id: &str, text: &str) -> ResponseItem {
    serde_json::from_value(json!({
        "type": "custom_tool_call_output", "call_id": call_id, "output": text,
    }))
    .unwrap()
}

fn claude_call(call_id: &str, name: &str, input: serde_json::Value) -> ResponseItem {
    ResponseItem::function_call(call_id, name, input.to_string())
}

fn claude_result(call_id: &str, text: &str, is_error: bool) -> ResponseItem {
    ResponseItem::FunctionCallOutput {
        call_id: call_id.to_string(),
        output: FunctionCallOutputPayload {
            success: Some(!is_error),
            ..FunctionCallOutputPayload::text(text)
        },
        extra: ExtraFields::new(),
    }
}

fn injected(text: &str) -> ResponseItem {
    let mut item = ResponseItem::user_text(text);
    item.set_injected(true);
    item
}

fn codex_session() -> Vec<ResponseItem> {
    vec![
        ResponseItem::developer_text("<permissions instructions>x</permissions instructions>"),
        ResponseItem::user_text("<environment_context>\n<cwd>/repo</cwd>\n</environment_context>"),
        ResponseItem::user_text("Add a `--since` option to `tally report`."),
        shell("c1", "rg -n \"Report|build_report\" src | head -40"),
        ResponseItem::function_call_output(
            "c1",
            "Exit code: 0\nWall time: 0.3 seconds\nOutput:\nsrc/cli.rs:22: Report",
        ),
        shell("c2", "sed -n 1,80p src/report.rs && cat src/dates.rs 2>&1"),
        ResponseItem::function_call_output("c2", "Exit code: 0\nOutput:\nuse std::x;"),
        ResponseItem::assistant_text(
            "I'll parse the date with `parse_date` instead of adding a new parser. Should I also add tests?",
        ),
        patch(
            "c3",
            "*** Begin Patch\n*** Update File: src/cli.rs\n@@\n+x\n*** Add File: src/since.rs\n+y\n*** End Patch",
        ),
        custom_output(
            "c3",
            "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM src/cli.rs",
        ),
        ResponseItem::function_call(
            "c4",
            "update_plan",
            json!({"plan": [
                {"step": "Add the option", "status": "completed"},
                {"step": "Write tests", "status": "in_progress"},
                {"step": "Update CHANGELOG.md", "status": "pending"},
            ]})
            .to_string(),
        ),
        ResponseItem::function_call_output("c4", "Plan updated"),
        shell("c5", "cargo test -q 2>&1 | tail -30"),
        ResponseItem::function_call_output(
            "c5",
            "Exit code: 101\nWall time: 33.2 seconds\nOutput:\n   Compiling tally\nerror[E0277]: the trait bound `ReportOptions: Default` is not satisfied\n",
        ),
        shell("c6", "cargo test -q"),
        ResponseItem::function_call_output("c6", "Exit code: 0\nOutput:\ntest result: ok."),
        shell("c7", "git push -u origin report-since"),
        ResponseItem::function_call_output(
            "c7",
            "Exit code: 128\nWall time: 0.3 seconds\nOutput:\nssh: Could not resolve hostname github.com: Temporary failure in name resolution\nfatal: Could not read from remote repository.\n",
        ),
        ResponseItem::assistant_text("Tests pass. The push failed: no network."),
    ]
}

#[test]
fn a_codex_history_yields_requests_files_commands_errors_and_the_plan() {
    let digest = HistoryDigest::from_items(&codex_session());
    assert_eq!(
        digest.user_requests,
        vec!["Add a `--since` option to `tally report`.".to_string()]
    );
    assert_eq!(digest.files_read, vec!["src/report.rs", "src/dates.rs"]);
    assert_eq!(digest.files_modified, vec!["src/cli.rs", "src/since.rs"]);
    assert_eq!(
        digest.commands,
        vec![
            CommandRun {
                command: "rg -n \"Report|build_report\" src | head -40".to_string(),
                exit_code: Some(0),
                failed: false,
            },
            CommandRun {
                command: "sed -n 1,80p src/report.rs && cat src/dates.rs 2>&1".to_string(),
                exit_code: Some(0),
                failed: false,
            },
            CommandRun {
                command: "cargo test -q 2>&1 | tail -30".to_string(),
                exit_code: Some(101),
                failed: true,
            },
            CommandRun {
                command: "cargo test -q".to_string(),
                exit_code: Some(0),
                failed: false,
            },
            CommandRun {
                command: "git push -u origin report-since".to_string(),
                exit_code: Some(128),
                failed: true,
            },
        ]
    );
    assert_eq!(
        digest.errors,
        vec![
            ErrorNote {
                source: "cargo test -q 2>&1 | tail -30".to_string(),
                message: "error[E0277]: the trait bound `ReportOptions: Default` is not satisfied"
                    .to_string(),
                resolved: true,
            },
            ErrorNote {
                source: "git push -u origin report-since".to_string(),
                message: "fatal: Could not read from remote repository.".to_string(),
                resolved: false,
            },
        ]
    );
    assert_eq!(
        digest
            .todos
            .iter()
            .map(|todo| (todo.content.as_str(), todo.status))
            .collect::<Vec<_>>(),
        vec![
            ("Add the option", TodoStatus::Completed),
            ("Write tests", TodoStatus::InProgress),
            ("Update CHANGELOG.md", TodoStatus::Pending),
        ]
    );
    assert_eq!(
        digest.decisions,
        vec!["I'll parse the date with `parse_date` instead of adding a new parser.".to_string()]
    );
    assert_eq!(
        digest.last_assistant_message.as_deref(),
        Some("Tests pass. The push failed: no network.")
    );
    assert_eq!(digest.tool_calls, 7);
    assert_eq!(
        digest.concepts,
        vec!["--since", "tally report", "parse_date"]
    );
}

#[test]
fn claude_code_tools_yield_files_commands_and_todos() {
    let history = vec![
        ResponseItem::user_text("Some posts show up twice in the digest."),
        claude_call("t1", "Read", json!({"file_path": "/p/src/digest.py"})),
        claude_result("t1", "     1→import x", false),
        claude_call("t2", "Read", json!({"file_path": "/p/missing.py"})),
        claude_result(
            "t2",
            "<tool_use_error>File does not exist.</tool_use_error>",
            true,
        ),
        claude_call(
            "t3",
            "TodoWrite",
            json!({"todos": [{"content": "Add entry_key()", "status": "in_progress", "activeForm": "Adding entry_key()"}]}),
        ),
        claude_result("t3", "Todos have been modified successfully.", false),
        claude_call(
            "t4",
            "Edit",
            json!({"file_path": "/p/src/digest.py", "old_string": "a", "new_string": "b"}),
        ),
        claude_result("t4", "The file /p/src/digest.py has been updated.", false),
        claude_call(
            "t5",
            "MultiEdit",
            json!({"file_path": "/p/src/render.py", "edits": []}),
        ),
        claude_result("t5", "ok", false),
        claude_call(
            "t6",
            "Write",
            json!({"file_path": "/p/tests/test_dedupe.py", "content": "x"}),
        ),
        claude_result("t6", "File created successfully", false),
        claude_call(
            "t7",
            "NotebookEdit",
            json!({"notebook_path": "/p/explore.ipynb", "new_source": "x"}),
        ),
        claude_result("t7", "ok", false),
        claude_call(
            "t8",
            "Bash",
            json!({"command": "uv run pytest -q 2>&1 | tail -15", "description": "Run"}),
        ),
        claude_result(
            "t8",
            "...F  [100%]\n=== FAILURES ===\nE       AssertionError: assert 1 == 2\n1 failed, 3 passed",
            true,
        ),
        claude_call(
            "t9",
            "Bash",
            json!({"command": "uv run pytest -q", "description": "Run"}),
        ),
        claude_result("t9", "4 passed in 0.6s", false),
        claude_call(
            "t10",
            "Grep",
            json!({"pattern": "def merge", "path": "src"}),
        ),
        claude_result("t10", "src/digest.py:17:def merge", false),
    ];
    let digest = HistoryDigest::from_items(&history);
    assert_eq!(digest.files_read, vec!["/p/src/digest.py"]);
    assert_eq!(
        digest.files_modified,
        vec![
            "/p/src/digest.py",
            "/p/src/render.py",
            "/p/tests/test_dedupe.py",
            "/p/explore.ipynb"
        ]
    );
    assert_eq!(
        digest.commands,
        vec![
            CommandRun {
                command: "uv run pytest -q 2>&1 | tail -15".to_string(),
                exit_code: None,
                failed: true,
            },
            CommandRun {
                command: "uv run pytest -q".to_string(),
                exit_code: None,
                failed: false,
            },
        ]
    );
    assert_eq!(
        digest.errors,
        vec![
            ErrorNote {
                source: "Read /p/missing.py".to_string(),
                message: "<tool_use_error>File does not exist.</tool_use_error>".to_string(),
                resolved: false,
            },
            ErrorNote {
                source: "uv run pytest -q 2>&1 | tail -15".to_string(),
                message: "E AssertionError: assert 1 == 2".to_string(),
                resolved: true,
            },
        ]
    );
    assert_eq!(
        digest.todos,
        vec![TodoItem {
            content: "Add entry_key()".to_string(),
            status: TodoStatus::InProgress,
            active_form: "Adding entry_key()".to_string(),
        }]
    );
}

#[test]
fn user_requests_leave_out_injected_contextual_and_summary_messages() {
    let history = vec![
        injected("<local-command-caveat>Caveat: …</local-command-caveat>"),
        ResponseItem::user_text("<local-command-stdout>Set model</local-command-stdout>"),
        ResponseItem::user_text(
            "# AGENTS.md instructions for /r\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>",
        ),
        ResponseItem::user_text(
            "This session is being continued from a previous conversation that ran out of context. Summary: we fixed the parser.",
        ),
        ResponseItem::Message {
            id: None,
            role: "user".to_string(),
            content: vec![
                ContentItem::input_text("<system-reminder>\nx\n</system-reminder>"),
                ContentItem::input_text("  keep my spacing  "),
            ],
            extra: ExtraFields::new(),
        },
    ];
    let digest = HistoryDigest::from_items(&history);
    assert_eq!(
        digest.user_requests,
        vec!["  keep my spacing  ".to_string()]
    );
    assert_eq!(digest.prior_summaries.len(), 1);
    assert!(digest.prior_summaries[0].ends_with("we fixed the parser."));
    assert_eq!(digest.latest_user_request(), Some("  keep my spacing  "));
    assert_eq!(user_request_text(&history[3]), None);
}

#[test]
fn a_failed_edit_is_resolved_by_a_later_edit_of_the_same_file() {
    let history = vec![
        claude_call(
            "a",
            "Edit",
            json!({"file_path": "src/x.rs", "old_string": "q"}),
        ),
        claude_result("a", "String to replace not found in file.", true),
        claude_call(
            "b",
            "Edit",
            json!({"file_path": "src/x.rs", "old_string": "r"}),
        ),
        claude_result("b", "The file src/x.rs has been updated.", false),
    ];
    let digest = HistoryDigest::from_items(&history);
    assert_eq!(
        digest.errors,
        vec![ErrorNote {
            source: "Edit src/x.rs".to_string(),
            message: "String to replace not found in file.".to_string(),
            resolved: true,
        }]
    );
    assert_eq!(digest.files_modified, vec!["src/x.rs"]);
}

#[test]
fn codex_argv_commands_redirects_and_in_place_edits_are_read() {
    let history = vec![
        ResponseItem::function_call(
            "a",
            "shell",
            json!({"command": ["bash", "-lc", "sed -i 's/a/b/' src/lib.rs && echo done > notes/out.txt"]}).to_string(),
        ),
        ResponseItem::function_call_output(
            "a",
            json!({"output": "done\n", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}).to_string(),
        ),
        ResponseItem::function_call("b", "exec_command", json!({"cmd": "head -n 20 Cargo.toml | tee copy.toml"}).to_string()),
        ResponseItem::function_call_output("b", "Chunk ID: 1\nProcess exited with code 0\nOutput:\n[package]"),
        serde_json::from_value(json!({
            "type": "local_shell_call", "call_id": "c", "status": "completed",
            "action": {"type": "exec", "command": ["cat", "README.md"]},
        }))
        .unwrap(),
        ResponseItem::function_call_output("c", "Exit code: 0\nOutput:\n# readme"),
        ResponseItem::function_call("d", "read_file", json!({"path": "docs/a.md"}).to_string()),
        ResponseItem::function_call_output("d", "text"),
        ResponseItem::function_call("e", "apply_patch", json!({"input": "*** Begin Patch\n*** Delete File: old.rs\n*** End Patch"}).to_string()),
        ResponseItem::function_call_output("e", "Success."),
    ];
    let digest = HistoryDigest::from_items(&history);
    assert_eq!(
        digest.files_read,
        vec!["Cargo.toml", "README.md", "docs/a.md"]
    );
    assert_eq!(
        digest.files_modified,
        vec!["src/lib.rs", "notes/out.txt", "copy.toml", "old.rs"]
    );
    assert_eq!(
        digest
            .commands
            .iter()
            .map(|run| (run.command.as_str(), run.exit_code))
            .collect::<Vec<_>>(),
        vec![
            (
                "sed -i 's/a/b/' src/lib.rs && echo done > notes/out.txt",
                Some(0)
            ),
            ("head -n 20 Cargo.toml | tee copy.toml", Some(0)),
            ("cat README.md", Some(0)),
        ]
    );
}

/// A Codex code-mode `exec` call as a rollout records it: a `custom_tool_call` whose input is
/// JavaScript that calls nested tools (codex-rs `code-mode/src/lib.rs`, `PUBLIC_TOOL_NAME`).
fn code_mode_exec(call_id: &str, input: &str) -> ResponseItem {
    serde_json::from_value(json!({
        "type": "custom_tool_call", "status": "completed", "call_id": call_id,
        "name": "exec", "input": input,
    }))
    .unwrap()
}

/// Its output: content items led by the script's status line and wall time (codex-rs
/// `core/src/tools/code_mode/mod.rs`, `prepend_script_status`).
fn code_mode_output(call_id: &str, status: &str, text: &str) -> ResponseItem {
    serde_json::from_value(json!({
        "type": "custom_tool_call_output", "call_id": call_id,
        "output": [
            {"type": "input_text", "text": format!("{status}\nWall time 0.4 seconds\nOutput:\n")},
            {"type": "input_text", "text": text},
        ],
    }))
    .unwrap()
}

#[test]
fn a_codex_code_mode_exec_cell_is_read_as_a_shell_command() {
    let flaky = "const a = await tools.exec_command({ \"cmd\": 'cat README.md' });\nawait tools.shell_command({command: `echo done > notes/out.txt`});\ntext(a.output);";
    let history = vec![
        ResponseItem::user_text("Run the tests."),
        code_mode_exec(
            "x1",
            "// @exec: {\"yield_time_ms\": 10000}\nconst r = await tools.exec_command({cmd: \"sed -n 1,40p src/lib.rs && cargo test -q\"});\ntext(r.output);",
        ),
        code_mode_output("x1", "Script completed", "test result: ok."),
        code_mode_exec("x2", flaky),
        code_mode_output(
            "x2",
            "Script failed",
            "Script error:\nTypeError: a.output is undefined",
        ),
        code_mode_exec("x3", flaky),
        code_mode_output("x3", "Script completed", "# readme"),
        code_mode_exec("x4", "await tools.exec_command({cmd: \"sleep 60\"});"),
        code_mode_output("x4", "Script running with cell ID 3", ""),
        // An `exec` function call with a command line is a plain shell command.
        ResponseItem::function_call("x5", "exec", json!({"cmd": "cat Cargo.toml"}).to_string()),
        ResponseItem::function_call_output("x5", "Process exited with code 0\nOutput:\n[package]"),
    ];
    let digest = HistoryDigest::from_items(&history);
    let flaky_line = "const a = await tools.exec_command({ \"cmd\": 'cat README.md' }); await tools.shell_command({command: `echo done > notes/out.txt`}); text(a.output);";
    assert_eq!(
        digest.commands,
        vec![
            CommandRun {
                command: "const r = await tools.exec_command({cmd: \"sed -n 1,40p src/lib.rs && cargo test -q\"}); text(r.output);".to_string(),
                exit_code: None,
                failed: false,
            },
            CommandRun {
                command: flaky_line.to_string(),
                exit_code: None,
                failed: true,
            },
            CommandRun {
                command: flaky_line.to_string(),
                exit_code: None,
                failed: false,
            },
            CommandRun {
                command: "await tools.exec_command({cmd: \"sleep 60\"});".to_string(),
                exit_code: None,
                failed: false,
            },
            CommandRun {
                command: "cat Cargo.toml".to_string(),
                exit_code: Some(0),
                failed: false,
            },
        ]
    );
    assert_eq!(
        digest.errors,
        vec![ErrorNote {
            source: flaky_line.to_string(),
            message: "Script error:".to_string(),
            resolved: true,
        }]
    );
    assert_eq!(
        digest.files_read,
        vec!["src/lib.rs", "README.md", "Cargo.toml"]
    );
    assert_eq!(digest.files_modified, vec!["notes/out.txt"]);
    assert_eq!(digest.tool_calls, 5);
}

#[test]
fn nested_commands_are_the_cmd_and_command_literals_of_a_cell() {
    use super::command_text::nested_commands;
    use super::command_text::script_status;
    use super::command_text::strip_exec_pragma;

    assert_eq!(
        nested_commands(
            "const r = await tools.exec_command({cmd: \"rg -n \\\"fn main\\\" src\"});\nconst s = await tools.shell_command({ 'command' : 'ls\\tsrc' });\nconst t = await tools.exec_command({cmd: `cat a.rs`, yield_time_ms: 100});"
        ),
        vec!["rg -n \"fn main\" src", "ls\tsrc", "cat a.rs"]
    );
    // Identifiers that only contain the key, empty and unterminated literals, and values that
    // are not literals are left out.
    assert_eq!(
        nested_commands(
            "const mycmd = 'x'; ccmd: 'y'; cmdline: 'z'; cmd: ''; command: name; cmd: \"open"
        ),
        Vec::<String>::new()
    );
    assert_eq!(
        strip_exec_pragma("// @exec: {\"max_output_tokens\": 10}\ntext(1)"),
        "text(1)"
    );
    assert_eq!(
        strip_exec_pragma("text(1)\n// @exec: {}"),
        "text(1)\n// @exec: {}"
    );
    assert_eq!(
        script_status("Script completed\nWall time 0.1 seconds"),
        Some(true)
    );
    assert_eq!(
        script_status("Script failed\nWall time 0.1 seconds"),
        Some(false)
    );
    assert_eq!(script_status("Script running with cell ID 3\n"), None);
    assert_eq!(script_status("Exit code: 1"), None);
}

#[test]
fn a_call_without_output_still_counts_and_an_orphan_output_is_ignored() {
    let history = vec![
        ResponseItem::function_call_output("nobody", "Exit code: 1\nOutput:\nerror: lost"),
        shell("late", "cat src/main.rs"),
    ];
    let digest = HistoryDigest::from_items(&history);
    assert_eq!(digest.files_read, vec!["src/main.rs"]);
    assert_eq!(
        digest.commands,
        vec![CommandRun {
            command: "cat src/main.rs".to_string(),
            exit_code: None,
            failed: false,
        }]
    );
    assert!(digest.errors.is_empty());
}

#[test]
fn questions_and_plain_statements_are_not_decisions() {
    let history = vec![ResponseItem::assistant_text(
        "Let's look at the parser first.\n- We should keep the old format rather than break users.\nShould I use serde instead of a manual parser?\nThe tests pass.\nOk.",
    )];
    let digest = HistoryDigest::from_items(&history);
    assert_eq!(
        digest.decisions,
        vec![
            "Let's look at the parser first.".to_string(),
            "We should keep the old format rather than break users.".to_string(),
        ]
    );
}

#[test]
fn unreadable_arguments_and_unknown_items_are_skipped() {
    let history = vec![
        ResponseItem::function_call("a", "Read", "{not json"),
        ResponseItem::function_call("b", "TodoWrite", json!({"todos": "nope"}).to_string()),
        ResponseItem::function_call("c", "shell", json!({"command": 42}).to_string()),
        serde_json::from_value(json!({"type": "something_new", "x": [1, 2]})).unwrap(),
        ResponseItem::function_call_output("a", "x"),
        ResponseItem::function_call_output("b", "x"),
        ResponseItem::function_call_output("c", "x"),
    ];
    let digest = HistoryDigest::from_items(&history);
    assert!(digest.files_read.is_empty());
    assert!(digest.todos.is_empty());
    assert_eq!(digest.tool_calls, 3);
}

#[test]
fn lists_are_capped_to_the_newest_entries() {
    let mut history = Vec::new();
    for n in 0..300 {
        history.push(shell(&format!("c{n}"), &format!("cat file{n}.txt")));
        history.push(ResponseItem::function_call_output(
            format!("c{n}"),
            format!("Exit code: 1\nOutput:\nerror: {n}"),
        ));
    }
    let digest = HistoryDigest::from_items(&history);
    assert_eq!(digest.commands.len(), 200);
    assert_eq!(digest.commands[0].command, "cat file100.txt");
    assert_eq!(digest.errors.len(), 50);
    assert_eq!(digest.errors[49].message, "error: 299");
}

#[test]
fn long_texts_are_clipped_on_char_boundaries() {
    let command = format!("echo {}", "é".repeat(1_000));
    let history = vec![
        shell("a", &command),
        ResponseItem::function_call_output(
            "a",
            format!("Exit code: 2\nOutput:\n{}", "ü".repeat(100_000)),
        ),
    ];
    let digest = HistoryDigest::from_items(&history);
    assert_eq!(digest.commands[0].command.chars().count(), 300);
    assert!(digest.commands[0].command.ends_with('…'));
    assert_eq!(digest.errors[0].message.chars().count(), 300);
}

#[test]
fn user_preferences_are_collected_once_and_questions_are_not() {
    let items = vec![
        ResponseItem::user_text(
            "Fix the login test. Always run `cargo nextest run` before you commit.",
        ),
        ResponseItem::assistant_text("I'll run the tests first."),
        ResponseItem::user_text("I prefer small commits. Should we never use unwrap?"),
        ResponseItem::user_text("Always run `cargo nextest run` before you commit."),
        ResponseItem::user_text(
            "From now on, write the changelog entry too.\nDon't touch the vendored code.",
        ),
    ];
    let digest = HistoryDigest::from_items(&items);
    assert_eq!(
        digest.preferences,
        vec![
            "Always run `cargo nextest run` before you commit.".to_string(),
            "I prefer small commits.".to_string(),
            "From now on, write the changelog entry too.".to_string(),
            "Don't touch the vendored code.".to_string(),
        ]
    );
    // The assistant's sentences are never the user's preferences.
    assert!(!digest.preferences.iter().any(|p| p.contains("I'll run")));
}

fn arbitrary_item() -> impl Strategy<Value = ResponseItem> {
    let text = "[ -~éü\n`<>/.]{0,40}";
    prop_oneof![
        text.prop_map(ResponseItem::user_text),
        text.prop_map(ResponseItem::assistant_text),
        (0..4u8, text).prop_map(|(id, command)| shell(&id.to_string(), &command)),
        (0..4u8, text)
            .prop_map(|(id, output)| ResponseItem::function_call_output(id.to_string(), output)),
        (0..4u8, text).prop_map(|(id, input)| patch(&id.to_string(), &input)),
        (0..4u8, "[a-zA-Z_]{1,12}", text).prop_map(|(id, name, args)| ResponseItem::function_call(
            id.to_string(),
            name,
            args
        )),
    ]
}

proptest! {
    #[test]
    fn any_history_digests_without_panicking(items in proptest::collection::vec(arbitrary_item(), 0..40)) {
        let digest = HistoryDigest::from_items(&items);
        prop_assert!(digest.commands.len() <= 200);
        prop_assert_eq!(HistoryDigest::from_items(&items), digest);
    }
}

/// The line `error_line` picked before each word was looked for only before the earliest match:
/// every word looked for in the whole lowered text, the earliest match taken.
fn error_line_searching_everywhere(output: &str) -> String {
    let body = match output.find("\nOutput:\n") {
        Some(at) => output.get(at + "\nOutput:\n".len()..).unwrap_or(output),
        None => output,
    };
    let lowered = body.to_ascii_lowercase();
    let first_match = [
        "error",
        "failed",
        "fatal",
        "panicked",
        "traceback",
        "exception",
        "not found",
        "denied",
    ]
    .iter()
    .filter_map(|word| lowered.find(word))
    .min();
    let error = first_match.and_then(|at| {
        let start = body.get(..at)?.rfind('\n').map_or(0, |newline| newline + 1);
        let end = body
            .get(at..)?
            .find('\n')
            .map_or(body.len(), |newline| at + newline);
        body.get(start..end).map(str::trim)
    });
    error
        .or_else(|| body.lines().map(str::trim).find(|line| !line.is_empty()))
        .map_or_else(|| "(no output)".to_string(), str::to_string)
}

#[test]
fn the_error_line_is_the_earliest_match_of_any_word() {
    let outputs = [
        "",
        "\n\n",
        "all good\nnothing here",
        "Exit code: 1\nOutput:\nwarning: x\nerror[E0308]: mismatched types\nfailed",
        "test a ... FAILED\nthread 'a' panicked at src/a.rs:1:1\nerror: test failed",
        "Permission DENIED\nerror: later",
        "fatalerror",
        "errorfailed",
        "é😀 not foun\nd: é not found here ERROR",
        "Traceback (most recent call last):\n  File x\nException: boom",
        "xx panicke",
        "a failed, then an error, then fatal",
        "ÉRROR é error",
    ];
    for output in outputs {
        assert_eq!(
            super::command_text::error_line(output),
            error_line_searching_everywhere(output),
            "{output:?}"
        );
    }
}
