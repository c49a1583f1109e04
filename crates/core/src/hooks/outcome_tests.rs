use pretty_assertions::assert_eq;

use super::*;

fn run(exit_code: Option<i32>, stdout: &str, stderr: &str) -> std::io::Result<CapturedOutput> {
    Ok(CapturedOutput {
        exit_code,
        stdout: stdout.to_string(),
        stderr: stderr.to_string(),
        timed_out: false,
        truncated: false,
    })
}

#[test]
fn exit_two_blocks_with_stderr() {
    let verdict = interpret(
        HookEvent::PreToolUse,
        "x",
        &run(Some(2), "ignored", " no \n"),
    );
    assert_eq!(verdict.block.as_deref(), Some("no"));
    assert_eq!(verdict.success_output, None);
}

#[test]
fn plain_stdout_is_a_success_output() {
    let verdict = interpret(HookEvent::UserPromptSubmit, "x", &run(Some(0), "hi\n", ""));
    assert_eq!(
        verdict,
        HookVerdict {
            success_output: Some("hi".to_string()),
            ..HookVerdict::default()
        }
    );
}

#[test]
fn json_output_decides() {
    let json = r#"{"continue": false, "stopReason": "done", "systemMessage": "note",
        "decision": "block", "reason": "why",
        "hookSpecificOutput": {"additionalContext": "ctx"}}"#;
    let verdict = interpret(HookEvent::PostToolUse, "x", &run(Some(0), json, ""));
    assert_eq!(
        verdict,
        HookVerdict {
            block: Some("why".to_string()),
            stop: Some("done".to_string()),
            additional_context: Some("ctx".to_string()),
            success_output: None,
            user_message: Some("note".to_string()),
            allow: false,
        }
    );
}

#[test]
fn a_permission_request_allows_or_denies_with_its_message() {
    let allow = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;
    let verdict = interpret(HookEvent::PermissionRequest, "x", &run(Some(0), allow, ""));
    assert!(verdict.allow);
    assert_eq!(verdict.block, None);
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main"}}}"#;
    let verdict = interpret(HookEvent::PermissionRequest, "x", &run(Some(0), deny, ""));
    assert!(!verdict.allow);
    assert_eq!(verdict.block.as_deref(), Some("not on main"));
    // Exit 2 denies too, stderr the reason.
    let verdict = interpret(HookEvent::PermissionRequest, "x", &run(Some(2), "", "no"));
    assert_eq!(verdict.block.as_deref(), Some("no"));
}

#[test]
fn a_handler_that_did_not_answer_is_for_the_user_only() {
    let verdict = failed(HookEvent::PreToolUse, "http://h", "HTTP status 500");
    assert_eq!(verdict.block, None);
    assert_eq!(
        verdict.user_message.as_deref(),
        Some("PreToolUse hook `http://h` failed: HTTP status 500")
    );
}

#[test]
fn pre_tool_use_permission_deny_blocks_and_allow_does_not() {
    let deny = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "not here"}}"#;
    let verdict = interpret(HookEvent::PreToolUse, "x", &run(Some(0), deny, ""));
    assert_eq!(verdict.block.as_deref(), Some("not here"));
    let allow = r#"{"hookSpecificOutput": {"permissionDecision": "allow"}}"#;
    let verdict = interpret(HookEvent::PreToolUse, "x", &run(Some(0), allow, ""));
    assert_eq!(verdict, HookVerdict::default());
}

#[test]
fn other_exits_timeouts_and_spawn_failures_are_for_the_user_only() {
    let failed = interpret(HookEvent::Stop, "lint", &run(Some(1), "", "oops"));
    assert_eq!(
        failed.user_message.as_deref(),
        Some("Stop hook `lint` failed with exit code 1: oops")
    );
    assert_eq!(failed.block, None);
    let timed_out = interpret(
        HookEvent::Stop,
        "lint",
        &Ok(CapturedOutput {
            timed_out: true,
            ..CapturedOutput::default()
        }),
    );
    assert_eq!(
        timed_out.user_message.as_deref(),
        Some("Stop hook `lint` timed out and was killed")
    );
    let not_started = interpret(
        HookEvent::Stop,
        "lint",
        &Err(std::io::Error::other("no bash")),
    );
    assert_eq!(
        not_started.user_message.as_deref(),
        Some("Stop hook `lint` could not start: no bash")
    );
}

#[test]
fn long_text_is_clipped() {
    let long = "a".repeat(HOOK_TEXT_LIMIT + 10);
    let verdict = interpret(HookEvent::SessionStart, "x", &run(Some(0), &long, ""));
    let text = verdict.success_output.unwrap();
    let kept = text.strip_suffix("\n[hook output truncated]").unwrap();
    assert_eq!(kept.len(), HOOK_TEXT_LIMIT);
}
