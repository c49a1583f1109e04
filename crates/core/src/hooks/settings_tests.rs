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
            "Notification": [{"hooks": [{"type": "command", "command": "a"}]}],
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
            .map(|hook| (hook.event, hook.command.command.as_str()))
            .collect::<Vec<_>>(),
        vec![(HookEvent::Stop, "b")]
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
            run_async: false,
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
        set.hooks[0].command.timeout(),
        std::time::Duration::from_secs(60)
    );
}
