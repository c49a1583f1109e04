use std::path::Path;

use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::candidates;
use super::command_core;
use super::extract;
use super::is_constraint;
use super::open_asks;
use crate::survival::ProbeKind;

const CWD: &str = "/home/mira/src/tally";

fn call(call_id: &str, name: &str, arguments: serde_json::Value) -> ResponseItem {
    ResponseItem::function_call(call_id, name, arguments.to_string())
}

fn shell(call_id: &str, command: &str) -> ResponseItem {
    call(
        call_id,
        "shell_command",
        json!({"command": command, "workdir": CWD}),
    )
}

fn shell_output(call_id: &str, code: i32, output: &str) -> ResponseItem {
    ResponseItem::function_call_output(
        call_id,
        format!("Exit code: {code}\nWall time: 0.2 seconds\nOutput:\n{output}"),
    )
}

const REPORT_RS: &str = "use std::collections::BTreeMap;\n\npub struct ReportOptions {\n    pub since: Option<Date>,\n}\n\npub fn build_report(ledger: &Ledger) -> Report {\n    Report::default()\n}\n";

/// A history that reads `src/report.rs`, runs the tests into an error, and states a constraint.
fn before() -> Vec<ResponseItem> {
    vec![
        ResponseItem::user_text(
            "Add a --since option to tally report. Never run `git push`; I push myself.",
        ),
        shell("c1", "sed -n 1,80p src/report.rs"),
        shell_output("c1", 0, REPORT_RS),
        shell("c2", "cargo test -q 2>&1 | tail -30"),
        shell_output(
            "c2",
            101,
            "error[E0277]: the trait bound `ReportOptions: Default` is not satisfied",
        ),
        ResponseItem::assistant_text("I'll derive Default on ReportOptions."),
        call(
            "c3",
            "update_plan",
            json!({"plan": [
                {"step": "derive Default for the report options", "status": "completed"},
                {"step": "document the since option in the README", "status": "pending"}
            ]}),
        ),
        ResponseItem::function_call_output("c3", "Plan updated"),
    ]
}

/// What the session did next: read the file again, ran the tests again, met the same error.
fn after() -> Vec<ResponseItem> {
    vec![
        shell("c4", "cat src/report.rs"),
        shell_output("c4", 0, REPORT_RS),
        ResponseItem::assistant_text(
            "`build_report` still needs `ReportOptions`; see /home/mira/src/tally/Cargo.toml.",
        ),
        shell("c5", "cargo test -q 2>&1 | tail -8"),
        shell_output(
            "c5",
            101,
            "error[E0277]: the trait bound `ReportOptions: Default` is not satisfied",
        ),
    ]
}

fn probes_of(before: &[ResponseItem], after: &[ResponseItem]) -> Vec<(ProbeKind, String)> {
    extract(before, after, Path::new(CWD))
        .into_iter()
        .map(|probe| (probe.kind, probe.text))
        .collect()
}

#[test]
fn every_kind_of_probe_comes_from_what_the_session_used_again() {
    assert_eq!(
        probes_of(&before(), &after()),
        vec![
            (ProbeKind::File, "src/report.rs".to_string()),
            (ProbeKind::Identifier, "build_report".to_string()),
            (ProbeKind::Identifier, "ReportOptions".to_string()),
            (ProbeKind::Command, "cargo test -q".to_string()),
            (
                ProbeKind::Error,
                "error[E0277]: the trait bound `ReportOptions: Default` is not satisfied"
                    .to_string()
            ),
            (
                ProbeKind::Constraint,
                "Never run `git push`; I push myself.".to_string()
            ),
            // No final answer followed the request: the assistant went on calling tools.
            (
                ProbeKind::OpenAsk,
                "Add a --since option to tally report. Never run `git push`; I push myself."
                    .to_string()
            ),
            (
                ProbeKind::Todo,
                "document the since option in the README".to_string()
            ),
        ]
    );
}

#[test]
fn nothing_the_earlier_history_never_held_is_a_probe() {
    let after = vec![
        shell("c9", "cat src/brand_new.rs"),
        shell_output("c9", 0, "pub fn brand_new_thing() {}\n"),
        ResponseItem::assistant_text(
            "Added `brand_new_thing` to /home/mira/src/tally/src/brand_new.rs.",
        ),
    ];
    let before = vec![
        ResponseItem::user_text("Make something up."),
        ResponseItem::assistant_text("Done."),
    ];
    assert_eq!(probes_of(&before, &after), Vec::new());
}

#[test]
fn the_constraint_rule_takes_standing_instructions_not_mentions() {
    for constraint in [
        "Never run `git push`.",
        "please don't touch the CSV importer",
        "You must keep the MSRV at 1.85.",
        "and only change files under src/",
        "Tests must pass before a commit.",
        "Always run clippy with -D warnings.",
    ] {
        assert!(is_constraint(constraint), "{constraint}");
    }
    for other in [
        "I never remember what day it is",
        "does the planet feed always have guids though?",
        "the only problem is the header",
        "can you add it?",
    ] {
        assert!(!is_constraint(other), "{other}");
    }
}

#[test]
fn open_asks_are_the_requests_since_the_last_final_answer() {
    let answered = vec![
        ResponseItem::user_text("first"),
        ResponseItem::assistant_text("done"),
    ];
    assert_eq!(open_asks(&answered), Vec::<String>::new());
    let working = vec![
        ResponseItem::user_text("first"),
        ResponseItem::assistant_text("done"),
        ResponseItem::user_text("second"),
        ResponseItem::assistant_text("I'll look."),
        shell("c1", "ls"),
        ResponseItem::user_text("and third"),
    ];
    assert_eq!(open_asks(&working), ["second", "and third"]);
}

#[test]
fn a_command_is_its_words_before_pipes_and_redirections() {
    assert_eq!(
        command_core("cargo test -q 2>&1 | tail -30"),
        ["cargo", "test", "-q"]
    );
    assert_eq!(
        command_core("git add a.rs && git commit -m x"),
        ["git", "add", "a.rs"]
    );
}

#[test]
fn paths_and_identifiers_are_told_from_words() {
    let kinds = |token| {
        candidates(token)
            .into_iter()
            .map(|(kind, text)| (kind, text.to_string()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        kinds("Cargo.toml"),
        [(ProbeKind::Path, "Cargo.toml".to_string())]
    );
    assert_eq!(
        kinds("/tmp/big.tally"),
        [(ProbeKind::Path, "/tmp/big.tally".to_string())]
    );
    assert_eq!(
        kinds("/usr/bin"),
        [(ProbeKind::Path, "/usr/bin".to_string())]
    );
    assert_eq!(
        kinds("self.entry_key()"),
        [(ProbeKind::Identifier, "entry_key".to_string())]
    );
    assert_eq!(
        kinds("--include-transfers"),
        [(ProbeKind::Identifier, "--include-transfers".to_string())]
    );
    assert_eq!(
        kinds("parseDate"),
        [(ProbeKind::Identifier, "parseDate".to_string())]
    );
    for word in [
        "report",
        "and/or",
        "https://example.com/a.rs",
        "e.g",
        "v1.2",
        "-q",
        "Report",
    ] {
        assert_eq!(kinds(word), Vec::new(), "{word}");
    }
}
