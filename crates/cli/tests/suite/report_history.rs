//! `agentctx report` over a history of fifty sessions, as a user runs it on `~/.codex/sessions`
//! and `~/.claude/projects`: stderr holds the one-line result and a line per distinct thing
//! worth knowing, never a line per session (docs/design/report.md, "What the report prints").

use std::path::Path;

use super::report::crate_dir;
use super::report::report;

/// Sessions in the history.
const SESSIONS: usize = 50;

/// Writes the history under `root`: variants of the bundled Codex rollout and Claude Code
/// transcripts, some asking for a reasoning effort the model does not take (every request body
/// the report renders would have warned about it), some with a corrupt line, and a file in the
/// folders that is not a session.
fn write_history(root: &Path) {
    let dir = crate_dir();
    let read = |path: &str| std::fs::read_to_string(dir.join(path)).unwrap();
    let codex = read(
        "examples/sessions/rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl",
    );
    assert!(codex.contains(r#""effort":"medium""#));
    let claude = [
        read("examples/sessions/claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl"),
        read("tests/fixtures/claude-long-agentic-turn.jsonl"),
        read("tests/fixtures/claude-reminders.jsonl"),
    ];
    let codex_dir = root.join("codex/sessions/2025/11/24");
    let claude_dir = root.join("claude/projects/-home-mira-src-tally");
    std::fs::create_dir_all(&codex_dir).unwrap();
    std::fs::create_dir_all(&claude_dir).unwrap();
    for index in 0..SESSIONS {
        if index % 2 == 0 {
            // gpt-5.1-codex takes low to high: `minimal` is sent as `low`, `xhigh` as `high`.
            let effort = ["minimal", "xhigh", "medium"][index % 3];
            let mut text =
                codex.replace(r#""effort":"medium""#, &format!(r#""effort":"{effort}""#));
            if index % 5 == 0 {
                text.push_str("{\"timestamp\":\"2025-11-24T10:00:00.000Z\",\"type\":\"respo\n");
            }
            let name =
                format!("rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-{index:012}.jsonl");
            std::fs::write(codex_dir.join(name), text).unwrap();
        } else {
            let mut text = claude[index % claude.len()].clone();
            if index % 7 == 0 {
                text.push_str("{\"type\":\"assistant\",\"message\":\n");
            }
            let name = format!("3e9b7c41-58d2-4a0f-b6e3-{index:012}.jsonl");
            std::fs::write(claude_dir.join(name), text).unwrap();
        }
    }
    // Not a session: found in a folder, skipped.
    std::fs::write(claude_dir.join("settings.jsonl"), "{\"theme\":\"dark\"}\n").unwrap();
}

#[test]
fn a_report_of_fifty_sessions_prints_at_most_five_lines_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history");
    write_history(&history);
    let out = dir.path().join("report");
    let output = report(
        &out,
        dir.path(),
        &[history.to_str().unwrap(), "--jobs", "2"],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines.len() <= 5, "{} lines:\n{stderr}", lines.len());
    // The requests were rendered (their bodies written), and none of them was sent: nothing
    // warns about the efforts they carry.
    assert!(!stderr.contains("reasoning effort"), "{stderr}");
    assert!(!stderr.contains("WARN"), "{stderr}");
    // The result, the corrupt lines and the file that is not a session each say so once.
    let last = lines.last().unwrap();
    assert!(
        last.starts_with(&format!("{SESSIONS} sessions (")) && last.ends_with("index.html"),
        "{stderr}"
    );
    let skipped = lines
        .iter()
        .filter(|line| line.contains("could not be read and were skipped"))
        .count();
    assert_eq!(skipped, 1, "{stderr}");
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("1 file skipped: not a codex rollout")),
        "{stderr}"
    );
    let pages = std::fs::read_dir(out.join("sessions"))
        .unwrap()
        .filter(|entry| {
            entry
                .as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|ext| ext == "html")
        })
        .count();
    assert_eq!(pages, SESSIONS);
}
