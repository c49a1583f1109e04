use pretty_assertions::assert_eq;

use super::ToolLimit;
use super::close_names;
use super::edit_distance;
use super::parse_command;
use super::tool_limit::shell_rule_matches;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|name| (*name).to_string()).collect()
}

#[test]
fn a_command_is_a_slash_a_name_and_its_arguments() {
    assert_eq!(
        parse_command("/commit fix the tests"),
        Some(("commit", "fix the tests"))
    );
    assert_eq!(parse_command("  /help  "), Some(("help", "")));
    assert_eq!(parse_command("/usr/bin/env ls"), None);
    assert_eq!(parse_command("fix /commit"), None);
    assert_eq!(parse_command("/"), None);
}

#[test]
fn close_names_are_the_nearest_by_edit_distance_or_prefix() {
    let all = names(&[
        "model",
        "plan",
        "context",
        "help",
        "clear",
        "compact",
        "commit",
        "review-pr",
    ]);
    assert_eq!(close_names("comit", &all), names(&["commit"]));
    assert_eq!(close_names("cont", &all), names(&["context"]));
    assert_eq!(close_names("modle", &all), names(&["model"]));
    assert_eq!(close_names("rev", &all), names(&["review-pr"]));
    assert_eq!(close_names("zzzzzz", &all), Vec::<String>::new());
    assert_eq!(edit_distance("kitten", "sitting"), 3);
}

#[test]
fn claude_code_tool_names_map_to_ours_and_bash_rules_limit_the_shell() {
    let limit = ToolLimit::new(
        "commit",
        &names(&[
            "Bash(git *)",
            "Read",
            "Grep",
            "Glob",
            "mcp__github__create_pr",
        ]),
    );
    assert_eq!(
        limit.allowed(),
        names(&[
            "shell",
            "read_file",
            "grep",
            "glob",
            "mcp__github__create_pr"
        ])
    );
    assert_eq!(limit.shell_rules(), names(&["git *"]));
    assert_eq!(limit.refusal("read_file", "{}"), None);
    assert_eq!(limit.refusal("shell", r#"{"command":"git status"}"#), None);
    assert_eq!(
        limit
            .refusal("shell", r#"{"command":"rm -rf src"}"#)
            .as_deref(),
        Some(
            "Error: the skill `commit` allows only shell commands matching `git *`; `rm -rf src` was not run"
        )
    );
    assert_eq!(
        limit.refusal("write_file", "{}").as_deref(),
        Some(
            "Error: the tool `write_file` is not allowed while the skill `commit` runs; allowed tools: shell, read_file, grep, glob, mcp__github__create_pr"
        )
    );
}

#[test]
fn a_limit_keeping_the_skill_tool_allows_it_once() {
    let limit = ToolLimit::new("reader", &names(&["Read"])).keeping("skill");
    assert_eq!(limit.allowed(), names(&["read_file", "skill"]));
    assert_eq!(limit.refusal("skill", "{}"), None);
    let again = limit.keeping("skill").keeping("read_file");
    assert_eq!(again.allowed(), names(&["read_file", "skill"]));
}

#[test]
fn a_bare_bash_entry_allows_any_command() {
    let limit = ToolLimit::new("deploy", &names(&["Bash(npm run build:*)", "Bash"]));
    assert_eq!(limit.allowed(), names(&["shell"]));
    assert!(limit.shell_rules().is_empty());
    assert_eq!(limit.refusal("shell", r#"{"command":"make"}"#), None);
}

#[test]
fn shell_rules_match_as_claude_code_reads_them() {
    assert!(shell_rule_matches("git add:*", "git add src/lib.rs"));
    assert!(shell_rule_matches("git add:*", "git add"));
    assert!(!shell_rule_matches("git add:*", "git addition"));
    assert!(shell_rule_matches("git *", "git commit -m 'x'"));
    assert!(!shell_rule_matches("git *", "gitk"));
    assert!(shell_rule_matches(
        "npm run * --silent",
        "npm run test --silent"
    ));
    assert!(!shell_rule_matches("npm run * --silent", "npm run test"));
    assert!(shell_rule_matches("make", "make"));
    assert!(!shell_rule_matches("make", "make all"));
}

#[test]
fn the_context_view_splits_the_history_by_category() {
    use agentctx_compact::CompactConfig;
    use agentctx_compact::CompactionThresholds;
    use agentctx_compact::ContextWindow;
    use agentctx_protocol::ResponseItem;

    use super::ContextView;

    let window = ContextWindow::new(16_000, Some(2_000), &CompactConfig::default());
    let thresholds = CompactionThresholds::new(window, &CompactConfig::default(), 600);
    let history = vec![
        ResponseItem::user_text(
            "<environment_context>\n  <cwd>/work</cwd>\n</environment_context>",
        ),
        ResponseItem::user_text("Fix the failing parser test in src/parser.rs, please."),
        ResponseItem::user_text("<system-reminder>\nThe todo list is empty.\n</system-reminder>"),
        ResponseItem::assistant_text("I will read the parser first."),
    ];
    let tools = vec![agentctx_model::ToolSpec {
        name: "read_file".to_string(),
        description: "Reads a file.".to_string(),
        parameters: serde_json::json!({"type": "object"}),
    }];
    let view = ContextView::of(
        "small-model",
        "You are a coding agent.",
        &tools,
        &history,
        window,
        thresholds,
        (1_234, window.effective_tokens(), 91),
    );
    insta::assert_snapshot!(view.render());
}
