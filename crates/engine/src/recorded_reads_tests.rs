use std::path::Path;
use std::path::PathBuf;

use agentctx_protocol::ExtraFields;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::RecordedAccess;
use super::RecordedRead;
use super::recorded_reads;
use super::request_count;

const CWD: &str = "/home/mira/src/tally";

fn call(call_id: &str, name: &str, arguments: serde_json::Value) -> ResponseItem {
    ResponseItem::function_call(call_id, name, arguments.to_string())
}

fn output(call_id: &str, text: &str) -> ResponseItem {
    ResponseItem::function_call_output(call_id, text)
}

/// A tool result as the Claude Code importer records it (`is_error` in `success`).
fn claude_result(call_id: &str, text: &str, is_error: bool) -> ResponseItem {
    ResponseItem::FunctionCallOutput {
        call_id: call_id.to_string(),
        output: FunctionCallOutputPayload {
            body: agentctx_protocol::FunctionCallOutputBody::Text(text.to_string()),
            success: Some(!is_error),
        },
        extra: ExtraFields::new(),
    }
}

fn reads(history: &[ResponseItem]) -> Vec<RecordedRead> {
    recorded_reads(history, Path::new(CWD))
}

fn full_read(path: &str, content: &str, request: i32) -> RecordedRead {
    RecordedRead {
        path: PathBuf::from(path),
        access: RecordedAccess::Read {
            offset: None,
            limit: None,
        },
        content: Some(content.to_string()),
        first_line: 1,
        whole: true,
        request,
    }
}

#[test]
fn agentctx_read_file_recovers_the_lines_and_resolves_against_the_cwd() {
    let history = [
        ResponseItem::user_text("fix the report"),
        call("c1", "read_file", json!({"path": "src/report.rs"})),
        output(
            "c1",
            "     1\tuse std::collections::BTreeMap;\n     2\t\n     3\tpub fn report() {}\n",
        ),
        call(
            "c2",
            "read_file",
            json!({"path": "./src/../src/big.rs", "offset": 1, "limit": 2}),
        ),
        output(
            "c2",
            "     1\tfn a() {}\n     2\tfn b() {}\n... 40 more lines; read on with offset 3\n",
        ),
        call("c3", "read_file", json!({"path": "missing.rs"})),
        output(
            "c3",
            "Error: cannot read missing.rs: No such file or directory (os error 2)",
        ),
        call("c4", "read_file", json!({"path": "empty.txt"})),
        output("c4", "empty.txt is empty."),
    ];
    assert_eq!(
        reads(&history),
        vec![
            full_read(
                "/home/mira/src/tally/src/report.rs",
                "use std::collections::BTreeMap;\n\npub fn report() {}\n",
                1
            ),
            RecordedRead {
                path: PathBuf::from("/home/mira/src/tally/src/big.rs"),
                access: RecordedAccess::Read {
                    offset: Some(1),
                    limit: Some(2),
                },
                content: Some("fn a() {}\nfn b() {}".to_string()),
                first_line: 1,
                whole: false,
                request: 2,
            },
            full_read("/home/mira/src/tally/empty.txt", "", 4),
        ]
    );
}

#[test]
fn claude_code_read_results_in_both_numberings_with_their_reminder() {
    let history = [
        call(
            "toolu_1",
            "Read",
            json!({"file_path": "/home/mira/src/feedkit/src/feedkit/model.py"}),
        ),
        claude_result(
            "toolu_1",
            "     1→from __future__ import annotations\n     2→\n     3→class Entry:\n     4→    guid: str | None\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered malware.\n</system-reminder>\n",
            false,
        ),
        ResponseItem::assistant_text("Read it."),
        ResponseItem::user_text("and the config"),
        call(
            "toolu_2",
            "Read",
            json!({"file_path": "/home/dev/relay/src/config.rs"}),
        ),
        claude_result(
            "toolu_2",
            "     1\tuse std::env;\n     2\t\n     3\tpub fn load() -> Config { unimplemented_yet() }",
            false,
        ),
        call(
            "toolu_3",
            "Read",
            json!({"file_path": "/home/mira/src/feedkit/src/feedkit/digest.py", "offset": 34, "limit": 2}),
        ),
        claude_result(
            "toolu_3",
            "    34→def merge(feeds):\n    35→    \"\"\"All entries.\"\"\"\n",
            false,
        ),
        call("toolu_4", "Read", json!({"file_path": "/nope.py"})),
        claude_result("toolu_4", "File does not exist.", true),
        call(
            "toolu_5",
            "Read",
            json!({"file_path": "/home/mira/src/feedkit/src/feedkit/model.py"}),
        ),
        claude_result(
            "toolu_5",
            "File unchanged since last read. The content from the earlier Read tool_result in this conversation is still current — refer to that instead of re-reading.",
            false,
        ),
    ];
    let model = "from __future__ import annotations\n\nclass Entry:\n    guid: str | None\n";
    assert_eq!(
        reads(&history),
        vec![
            full_read("/home/mira/src/feedkit/src/feedkit/model.py", model, 1),
            full_read(
                "/home/dev/relay/src/config.rs",
                "use std::env;\n\npub fn load() -> Config { unimplemented_yet() }\n",
                3
            ),
            RecordedRead {
                path: PathBuf::from("/home/mira/src/feedkit/src/feedkit/digest.py"),
                access: RecordedAccess::Read {
                    offset: Some(34),
                    limit: Some(2),
                },
                content: Some("def merge(feeds):\n    \"\"\"All entries.\"\"\"".to_string()),
                first_line: 34,
                whole: false,
                request: 4,
            },
            // The repeated read is the content seen before.
            full_read("/home/mira/src/feedkit/src/feedkit/model.py", model, 6),
        ]
    );
}

#[test]
fn codex_shell_reads_of_one_file() {
    let shell = |call_id: &str, command: &str| {
        call(
            call_id,
            "shell_command",
            json!({"command": command, "workdir": CWD}),
        )
    };
    let history = [
        shell("c1", "cat src/dates.rs"),
        output(
            "c1",
            "Exit code: 0\nWall time: 0.2 seconds\nOutput:\nuse jiff::civil::Date;\n\npub fn parse() {}\n",
        ),
        shell("c2", "sed -n 1,80p src/report.rs"),
        output(
            "c2",
            "Exit code: 0\nWall time: 0.3 seconds\nOutput:\nuse std::collections::BTreeMap;\n\npub struct ReportOptions;\n",
        ),
        shell("c3", "sed -n 36,37p src/import/csv.rs"),
        output(
            "c3",
            "Exit code: 0\nWall time: 0.2 seconds\nOutput:\n    fn column_order() {\n    }\n",
        ),
        call(
            "c4",
            "exec_command",
            json!({"cmd": "nl -ba Cargo.toml", "workdir": CWD}),
        ),
        output(
            "c4",
            "Chunk ID: 6a493e\nWall time: 0.0002 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\n     1\t[package]\n     2\tname = \"tally\"\n",
        ),
        shell("c5", "cat src/gone.rs"),
        output(
            "c5",
            "Exit code: 1\nWall time: 0 seconds\nOutput:\ncat: src/gone.rs: No such file or directory\n",
        ),
    ];
    assert_eq!(
        reads(&history),
        vec![
            full_read(
                "/home/mira/src/tally/src/dates.rs",
                "use jiff::civil::Date;\n\npub fn parse() {}\n",
                1
            ),
            // Fewer lines than asked for: the end of the file was reached.
            RecordedRead {
                access: RecordedAccess::Read {
                    offset: Some(1),
                    limit: Some(80),
                },
                ..full_read(
                    "/home/mira/src/tally/src/report.rs",
                    "use std::collections::BTreeMap;\n\npub struct ReportOptions;\n",
                    2
                )
            },
            RecordedRead {
                path: PathBuf::from("/home/mira/src/tally/src/import/csv.rs"),
                access: RecordedAccess::Read {
                    offset: Some(36),
                    limit: Some(2),
                },
                content: Some("    fn column_order() {\n    }".to_string()),
                first_line: 36,
                whole: false,
                request: 3,
            },
            full_read(
                "/home/mira/src/tally/Cargo.toml",
                "[package]\nname = \"tally\"\n",
                4
            ),
        ]
    );
}

#[test]
fn a_cut_output_keeps_the_lines_before_the_cut() {
    let history = [
        call("c1", "read_file", json!({"path": "src/long.rs"})),
        output(
            "c1",
            "     1\tfn a() {}\n     2\tfn b() {}\n     3\tfn c…1200 tokens truncated…   900\tfn z() {}\n",
        ),
    ];
    let read = &reads(&history)[0];
    assert!(!read.whole);
    assert_eq!(read.content.as_deref(), Some("fn a() {}\nfn b() {}"));
    assert_eq!(read.seen_range(), (Some(1), Some(2)));
}

#[test]
fn writes_and_edits_give_the_content_after_them() {
    let history = [
        call(
            "toolu_1",
            "Write",
            json!({"file_path": "/repo/tests/test_dedupe.py", "content": "def test_a():\n    assert 1\n"}),
        ),
        claude_result(
            "toolu_1",
            "File created successfully at: /repo/tests/test_dedupe.py",
            false,
        ),
        call(
            "toolu_2",
            "Edit",
            json!({"file_path": "/repo/tests/test_dedupe.py", "old_string": "assert 1", "new_string": "assert 2"}),
        ),
        claude_result(
            "toolu_2",
            "The file /repo/tests/test_dedupe.py has been updated.",
            false,
        ),
        call(
            "toolu_3",
            "MultiEdit",
            json!({"file_path": "/repo/tests/test_dedupe.py", "edits": [
                {"old_string": "test_a", "new_string": "test_b"},
                {"old_string": "2", "new_string": "3", "replace_all": true}
            ]}),
        ),
        claude_result("toolu_3", "Applied 2 edits.", false),
        // An edit of a file never seen whole: its content is not known.
        call(
            "c4",
            "edit_file",
            json!({"path": "src/lib.rs", "old_string": "a", "new_string": "b"}),
        ),
        output("c4", "Edited src/lib.rs"),
        // A failed edit changes nothing.
        call(
            "toolu_5",
            "Edit",
            json!({"file_path": "/repo/tests/test_dedupe.py", "old_string": "nope", "new_string": "x"}),
        ),
        claude_result("toolu_5", "String to replace not found in file.", true),
    ];
    let write = |path: &str, content: Option<&str>, request: i32| RecordedRead {
        path: PathBuf::from(path),
        access: RecordedAccess::Write,
        content: content.map(str::to_string),
        first_line: 1,
        whole: content.is_some(),
        request,
    };
    assert_eq!(
        reads(&history),
        vec![
            write(
                "/repo/tests/test_dedupe.py",
                Some("def test_a():\n    assert 1\n"),
                1
            ),
            write(
                "/repo/tests/test_dedupe.py",
                Some("def test_a():\n    assert 2\n"),
                2
            ),
            write(
                "/repo/tests/test_dedupe.py",
                Some("def test_b():\n    assert 3\n"),
                3
            ),
            write("/home/mira/src/tally/src/lib.rs", None, 4),
        ]
    );
}

#[test]
fn a_patch_changes_its_files_to_unknown_content() {
    let patch: ResponseItem = serde_json::from_value(json!({
        "type": "custom_tool_call", "status": "completed", "call_id": "p1", "name": "apply_patch",
        "input": "*** Begin Patch\n*** Update File: src/cli.rs\n@@\n-a\n+b\n*** End Patch\n",
    }))
    .unwrap();
    let patch_output: ResponseItem = serde_json::from_value(json!({
        "type": "custom_tool_call_output", "call_id": "p1",
        "output": "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM src/cli.rs\n",
    }))
    .unwrap();
    let history = [
        call("c1", "shell_command", json!({"command": "cat src/cli.rs"})),
        output("c1", "Exit code: 0\nWall time: 0 seconds\nOutput:\na\n"),
        patch,
        patch_output,
    ];
    let reads = reads(&history);
    assert_eq!(reads.len(), 2);
    assert_eq!(reads[1].access, RecordedAccess::Write);
    assert_eq!(reads[1].content, None);
    assert_eq!(
        reads[1].path,
        PathBuf::from("/home/mira/src/tally/src/cli.rs")
    );
}

#[test]
fn a_file_an_earlier_compaction_restored_counts_as_read() {
    let mut cache = agentctx_compact::FileCache::default();
    cache.record_read("/repo/src/a.rs", "fn a() {}\n");
    let restored = agentctx_compact::restore_context(
        &agentctx_compact::RestorationInput {
            file_cache: Some(&cache),
            ..agentctx_compact::RestorationInput::default()
        },
        &agentctx_compact::ContextRestorationConfig::default(),
    );
    assert_eq!(
        reads(&restored.items),
        vec![full_read("/repo/src/a.rs", "fn a() {}\n", 0)]
    );
}

#[test]
fn what_the_model_saw_agrees_with_the_file_or_not() {
    let seen = full_read("/repo/a.rs", "fn a() {}\nfn b() {}\n", 1);
    assert!(seen.agrees_with("fn a() {}\nfn b() {}\n"));
    // The final newline is not shown by the read tools.
    assert!(seen.agrees_with("fn a() {}\nfn b() {}"));
    assert!(!seen.agrees_with("fn a() {}\nfn b() { panic() }\n"));
    assert!(!seen.agrees_with("fn a() {}\nfn b() {}\nfn c() {}\n"));
    let part = RecordedRead {
        content: Some("fn b() {}".to_string()),
        first_line: 2,
        whole: false,
        ..seen.clone()
    };
    assert!(part.agrees_with("fn a() {}\nfn b() {}\nfn c() {}\n"));
    assert!(!part.agrees_with("fn b() {}\n"));
    assert_eq!(part.cache_text().as_deref(), Some("     2\tfn b() {}\n"));
    assert_eq!(part.seen_range(), (Some(2), Some(1)));
    assert_eq!(seen.cache_text().as_deref(), Some("fn a() {}\nfn b() {}\n"));
    assert_eq!(seen.seen_range(), (None, None));
}

#[test]
fn requests_are_counted_as_the_live_clock_counts_them() {
    let history = [
        ResponseItem::user_text("go"),
        call("c1", "read_file", json!({"path": "a.rs"})),
        output("c1", "     1\ta\n"),
        call("c2", "read_file", json!({"path": "b.rs"})),
        output("c2", "     1\tb\n"),
        ResponseItem::assistant_text("done"),
    ];
    assert_eq!(request_count(&history), 3);
    let requests: Vec<i32> = reads(&history).iter().map(|read| read.request).collect();
    assert_eq!(requests, vec![1, 2]);
}

#[test]
fn line_numbers_are_written_as_format_writes_them() {
    for number in [
        0,
        1,
        9,
        10,
        99_999,
        100_000,
        999_999,
        1_000_000,
        123_456_789,
        usize::MAX,
    ] {
        let mut out = String::new();
        super::push_line_number(&mut out, number);
        assert_eq!(out, format!("{number:>6}"));
    }
}

/// `leading_lines` as it was before it looked for the first marker once: line by line.
fn leading_lines_line_by_line(text: &str) -> String {
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        if agentctx_context::has_cut_marker(line) || !line.ends_with('\n') {
            break;
        }
        out.push_str(line);
    }
    out
}

#[test]
fn leading_lines_stop_at_the_line_of_the_first_marker() {
    let texts = [
        "",
        "\n",
        "no newline",
        "one\ntwo\nthree",
        "one\ntwo\nthree\n",
        "one\ntwo …12 tokens truncated… two\nthree\n",
        "…12 tokens truncated… first\nsecond\n",
        "a\nb\n[... omitted 3 of 9 lines ...]\nc\n",
        "a\nb …5 chars truncated… x\nc …7 tokens truncated…\n",
        "é😀\n naïve …5 chars truncated…",
        "a\n\n\nb\n …1 tokens truncated…",
    ];
    for text in texts {
        assert_eq!(
            super::leading_lines(text),
            leading_lines_line_by_line(text),
            "{text:?}"
        );
    }
}
