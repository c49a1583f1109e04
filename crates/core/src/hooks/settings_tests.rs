use pretty_assertions::assert_eq;

use super::*;

#[test]
fn matchers_follow_claude_code() {
    assert!(matches(None, &["write_file", "Write"]));
    assert!(matches(Some(""), &["shell"]));
    assert!(matches(Some("*"), &["shell"]));
    assert!(matches(Some("Write"), &["write_file", "Write"]));
    assert!(!matches(Some("Write"), &["shell", "Bash"]));
    assert!(matches(Some("Edit|Write"), &["edit_file", "Edit"]));
    assert!(matches(Some("Notebook.*"), &["NotebookEdit"]));
    // Whole-name match: `Write` does not match `WriteFile`.
    assert!(!matches(Some("Write"), &["WriteFile"]));
    // An invalid expression matches exactly.
    assert!(matches(Some("a("), &["a("]));
    assert!(!matches(Some("a("), &["a"]));
}

#[test]
fn unknown_events_other_types_and_bad_files_are_skipped() {
    let cwd = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(cwd.path().join(".claude")).unwrap();
    std::fs::write(
        cwd.path().join(".claude/settings.json"),
        r#"{"hooks": {
            "WorktreeCreate": [{"hooks": [{"type": "command", "command": "a"}]}],
            "Stop": [{"hooks": [{"type": "prompt", "prompt": "p"}, {"type": "command", "command": "b"}]}],
            "Stop ": []
        }}"#,
    )
    .unwrap();
    std::fs::write(cwd.path().join(".claude/settings.local.json"), "not json").unwrap();
    let set = HookSet::load(&HooksConfig::default(), cwd.path());
    assert_eq!(
        set.hooks
            .iter()
            .map(|hook| (hook.event, hook.command.label()))
            .collect::<Vec<_>>(),
        vec![
            (HookEvent::Stop, "p".to_string()),
            (HookEvent::Stop, "b".to_string())
        ]
    );
    let off = HooksConfig {
        read_project_settings: false,
        ..HooksConfig::default()
    };
    assert!(HookSet::load(&off, cwd.path()).is_empty());
}

#[test]
fn the_same_command_runs_once_per_event() {
    let matcher = |m: &str| HookMatcher {
        matcher: Some(m.to_string()),
        hooks: vec![HookCommand {
            kind: "command".to_string(),
            command: "same".to_string(),
            timeout: None,
            ..HookCommand::default()
        }],
    };
    let mut config = HooksConfig {
        read_project_settings: false,
        ..HooksConfig::default()
    };
    config.events.insert(
        "PreToolUse".to_string(),
        vec![matcher("Write"), matcher("*")],
    );
    let cwd = tempfile::tempdir().unwrap();
    let set = HookSet::load(&config, cwd.path());
    assert_eq!(
        set.matching(HookEvent::PreToolUse, &["write_file", "Write"])
            .len(),
        1
    );
    assert_eq!(
        set.matching(HookEvent::PreToolUse, &["shell", "Bash"])
            .len(),
        1
    );
    assert!(set.matching(HookEvent::Stop, &[]).is_empty());
    assert_eq!(
        set.hooks[0].command.timeout_on(HookEvent::PreToolUse),
        std::time::Duration::from_secs(600)
    );
}

#[test]
fn default_timeouts_follow_the_reference() {
    use std::time::Duration;
    let command = HookCommand::shell("true");
    assert_eq!(
        command.timeout_on(HookEvent::PreToolUse),
        Duration::from_secs(600)
    );
    assert_eq!(
        command.timeout_on(HookEvent::UserPromptSubmit),
        Duration::from_secs(30)
    );
    assert_eq!(
        command.timeout_on(HookEvent::SessionEnd),
        Duration::from_millis(1_500)
    );
    let prompt = HookCommand {
        kind: "prompt".into(),
        prompt: Some("p".into()),
        ..HookCommand::default()
    };
    assert_eq!(prompt.timeout_on(HookEvent::Stop), Duration::from_secs(30));
    let http = HookCommand {
        kind: "http".into(),
        url: Some("http://localhost".into()),
        timeout: Some(5),
        ..HookCommand::default()
    };
    assert_eq!(
        http.timeout_on(HookEvent::PreToolUse),
        Duration::from_secs(5)
    );
    let long_end = HookCommand {
        timeout: Some(600),
        ..HookCommand::shell("true")
    };
    assert_eq!(
        long_end.timeout_on(HookEvent::SessionEnd),
        Duration::from_secs(60)
    );
}

#[test]
fn our_search_tools_match_claude_codes_names() {
    // `grep`, `glob` and `list_dir` are matched by their Claude Code names (Grep, Glob, LS).
    for name in ["grep", "glob", "list_dir"] {
        let claude = crate::hooks_ext::claude_tool_name(name).unwrap();
        assert!(matches(Some("Grep|Glob|LS"), &[name, claude]), "{name}");
    }
    assert!(!matches(Some("Grep|Glob|LS"), &["read_file", "Read"]));
}

#[test]
fn a_regex_matcher_is_searched_and_a_plain_one_is_exact() {
    assert!(matches(Some("^Notebook"), &["NotebookEdit"]));
    assert!(matches(Some("mcp__memory__.*"), &["mcp__memory__create"]));
    assert!(!matches(Some("mcp__memory"), &["mcp__memory__create"]));
    assert!(!matches(Some("Edit"), &["NotebookEdit"]));
    // Events without matcher support ignore it.
    assert!(event_matches(HookEvent::Stop, Some("nothing"), &["x"]));
    assert!(!event_matches(
        HookEvent::SessionEnd,
        Some("clear"),
        &["other"]
    ));
}

#[test]
fn http_prompt_and_mcp_tool_hooks_are_read_and_agent_hooks_skipped() {
    let cwd = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(cwd.path().join(".claude")).unwrap();
    std::fs::write(
        cwd.path().join(".claude/settings.json"),
        r#"{"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "http", "url": "http://localhost:8080/h", "headers": {"Authorization": "Bearer $T"}, "allowedEnvVars": ["T"]},
                {"type": "prompt", "prompt": "ok? $ARGUMENTS"},
                {"type": "mcp_tool", "server": "s", "tool": "t", "input": {"p": "${tool_input.command}"}},
                {"type": "agent", "prompt": "verify"},
                {"type": "http"}
            ]}],
            "WorktreeCreate": [{"hooks": [{"type": "command", "command": "x"}]}]
        }}"#,
    )
    .unwrap();
    let set = HookSet::load(&HooksConfig::default(), cwd.path());
    let kinds: Vec<&str> = set
        .hooks
        .iter()
        .map(|hook| hook.command.kind.as_str())
        .collect();
    assert_eq!(kinds, vec!["http", "prompt", "mcp_tool"]);
    assert_eq!(set.hooks[0].command.allowed_env_vars, vec!["T".to_string()]);
}
