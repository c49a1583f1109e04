use agentctx_skills::HookDefinition;
use agentctx_skills::HookMatcher;
use agentctx_skills::SkillHooksConfig;
use pretty_assertions::assert_eq;

use super::*;

fn config(event: &str, matcher: Option<&str>, command: &str, once: bool) -> SkillHooksConfig {
    [(
        event.to_string(),
        vec![HookMatcher {
            matcher: matcher.map(str::to_string),
            hooks: vec![HookDefinition {
                hook_type: "command".to_string(),
                command: Some(command.to_string()),
                once,
                timeout: Some(5),
            }],
        }],
    )]
    .into_iter()
    .collect()
}

fn commands(hooks: &[ConfiguredHook]) -> Vec<&str> {
    hooks
        .iter()
        .map(|hook| hook.command.command.as_str())
        .collect()
}

#[test]
fn an_active_skills_hooks_match_like_configured_ones_until_deactivated() {
    let hooks = SkillHooks::default();
    assert!(hooks.is_empty());
    hooks.activate(
        "lint",
        &config("PreToolUse", Some("Bash"), "./check.sh", false),
    );
    assert!(!hooks.is_empty());
    let matched = hooks.take_matching(HookEvent::PreToolUse, &["shell", "Bash"]);
    assert_eq!(commands(&matched), ["./check.sh"]);
    assert_eq!(matched[0].source, "skill lint");
    assert_eq!(matched[0].command.timeout, Some(5));
    assert!(
        hooks
            .take_matching(HookEvent::PreToolUse, &["read_file", "Read"])
            .is_empty()
    );
    assert!(
        hooks
            .take_matching(HookEvent::PostToolUse, &["shell", "Bash"])
            .is_empty()
    );
    // Still there for the next call of the turn.
    assert_eq!(
        hooks
            .take_matching(HookEvent::PreToolUse, &["shell", "Bash"])
            .len(),
        1
    );
    hooks.deactivate_all();
    assert!(
        hooks
            .take_matching(HookEvent::PreToolUse, &["shell", "Bash"])
            .is_empty()
    );
}

#[test]
fn a_once_hook_runs_once_per_session_even_when_the_skill_runs_again() {
    let hooks = SkillHooks::default();
    let once = config("PreToolUse", None, "./setup.sh", true);
    hooks.activate("setup", &once);
    // Invoked twice in a turn: added once.
    hooks.activate("setup", &once);
    assert_eq!(
        hooks.take_matching(HookEvent::PreToolUse, &["shell"]).len(),
        1
    );
    assert!(
        hooks
            .take_matching(HookEvent::PreToolUse, &["shell"])
            .is_empty()
    );
    hooks.deactivate_all();
    hooks.activate("setup", &once);
    assert!(
        hooks
            .take_matching(HookEvent::PreToolUse, &["shell"])
            .is_empty()
    );
}

#[test]
fn unknown_events_other_types_and_empty_commands_are_skipped() {
    let hooks = SkillHooks::default();
    let mut config = config("WorktreeCreate", None, "./notify.sh", false);
    config.insert(
        "PostToolUse".to_string(),
        vec![HookMatcher {
            matcher: None,
            hooks: vec![
                HookDefinition {
                    hook_type: "prompt".to_string(),
                    command: Some("judge".to_string()),
                    once: false,
                    timeout: None,
                },
                HookDefinition {
                    hook_type: "command".to_string(),
                    command: None,
                    once: false,
                    timeout: None,
                },
            ],
        }],
    );
    hooks.activate("odd", &config);
    assert!(hooks.is_empty());
}

#[test]
fn a_scoped_set_holds_its_own_hooks_and_shares_the_sessions_once_record() {
    let session = SkillHooks::default();
    let once = config("PreToolUse", None, "./setup.sh", true);
    let forked = session.scoped();
    forked.activate("setup", &once);
    // The forked skill's hooks are not the session's active ones.
    assert!(session.is_empty());
    assert_eq!(
        forked
            .take_matching(HookEvent::PreToolUse, &["read_file"])
            .len(),
        1
    );
    // Its `once` hook ran: neither another fork nor the skill run in the session runs it again.
    let again = session.scoped();
    again.activate("setup", &once);
    assert!(
        again
            .take_matching(HookEvent::PreToolUse, &["read_file"])
            .is_empty()
    );
    session.activate("setup", &once);
    assert!(
        session
            .take_matching(HookEvent::PreToolUse, &["shell"])
            .is_empty()
    );
}
