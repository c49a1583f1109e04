use pretty_assertions::assert_eq;
use serde_json::json;

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
            ..HookVerdict::default()
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
    assert_eq!(
        verdict,
        HookVerdict {
            permission: Some(PermissionDecision::Allow),
            ..HookVerdict::default()
        }
    );
}

/// The reference's `PreToolUse` decision control: `permissionDecision`,
/// `permissionDecisionReason` (kept for `allow` and `ask`, for the user), `updatedInput`,
/// `additionalContext`.
#[test]
fn pre_tool_use_decision_control_is_read_as_documented() {
    let allow = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "allow", "permissionDecisionReason": "My reason here",
        "updatedInput": {"field_to_modify": "new value"},
        "additionalContext": "Current environment: production. Proceed with caution."}}"#;
    assert_eq!(
        interpret(HookEvent::PreToolUse, "x", &run(Some(0), allow, "")),
        HookVerdict {
            permission: Some(PermissionDecision::Allow),
            permission_reason: Some("My reason here".to_owned()),
            updated_input: Some(json!({"field_to_modify": "new value"})),
            additional_context: Some(
                "Current environment: production. Proceed with caution.".to_owned()
            ),
            ..HookVerdict::default()
        }
    );
    let ask = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "ask", "permissionDecisionReason": "Touches the release branch",
        "updatedInput": {"command": "git push --dry-run"}}}"#;
    let verdict = interpret(HookEvent::PreToolUse, "x", &run(Some(0), ask, ""));
    assert_eq!(verdict.permission, Some(PermissionDecision::Ask));
    assert_eq!(
        verdict.permission_reason.as_deref(),
        Some("Touches the release branch")
    );
    assert_eq!(
        verdict.updated_input,
        Some(json!({"command": "git push --dry-run"}))
    );
    assert_eq!(verdict.block, None);
    // `defer`: read, its reason ignored ("For `defer`, ignored").
    let defer = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "defer", "permissionDecisionReason": "later"}}"#;
    assert_eq!(
        interpret(HookEvent::PreToolUse, "x", &run(Some(0), defer, "")),
        HookVerdict {
            permission: Some(PermissionDecision::Defer),
            ..HookVerdict::default()
        }
    );
    // Precedence when hooks disagree: deny > defer > ask > allow.
    let mut decisions = vec![
        PermissionDecision::Allow,
        PermissionDecision::Deny,
        PermissionDecision::Ask,
        PermissionDecision::Defer,
    ];
    decisions.sort();
    assert_eq!(
        decisions,
        vec![
            PermissionDecision::Allow,
            PermissionDecision::Ask,
            PermissionDecision::Defer,
            PermissionDecision::Deny,
        ]
    );
}

/// The reference's `PermissionRequest` decision control: `allow` with `updatedInput` and
/// `updatedPermissions`, `deny` with `message` and `interrupt`.
#[test]
fn permission_request_decision_control_is_read_as_documented() {
    let allow = r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "allow", "updatedInput": {"command": "npm run lint"},
          "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]}}}"#;
    assert_eq!(
        interpret(HookEvent::PermissionRequest, "x", &run(Some(0), allow, "")),
        HookVerdict {
            allow: true,
            updated_input: Some(json!({"command": "npm run lint"})),
            updated_permissions: vec![
                json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
            ],
            ..HookVerdict::default()
        }
    );
    let deny = r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "deny", "message": "Not in CI", "interrupt": true}}}"#;
    assert_eq!(
        interpret(HookEvent::PermissionRequest, "x", &run(Some(0), deny, "")),
        HookVerdict {
            block: Some("Not in CI".to_owned()),
            interrupt: true,
            ..HookVerdict::default()
        }
    );
}

/// The reference's `PostToolUse` decision control: `decision: "block"` with `reason`,
/// `additionalContext`, and the output replacements `updatedToolOutput` (every tool) and
/// `updatedMCPToolOutput` (MCP tools).
#[test]
fn post_tool_use_decision_control_is_read_as_documented() {
    let json = r#"{"decision": "block", "reason": "Lint failed",
        "hookSpecificOutput": {"hookEventName": "PostToolUse",
          "additionalContext": "Run make lint.", "updatedToolOutput": "[redacted]",
          "updatedMCPToolOutput": {"content": [{"type": "text", "text": "[redacted]"}]}}}"#;
    assert_eq!(
        interpret(HookEvent::PostToolUse, "x", &run(Some(0), json, "")),
        HookVerdict {
            block: Some("Lint failed".to_owned()),
            additional_context: Some("Run make lint.".to_owned()),
            updated_tool_output: Some(json!("[redacted]")),
            updated_mcp_tool_output: Some(
                json!({"content": [{"type": "text", "text": "[redacted]"}]})
            ),
            ..HookVerdict::default()
        }
    );
    // Other events do not read these fields.
    let verdict = interpret(HookEvent::PostToolUseFailure, "x", &run(Some(0), json, ""));
    assert_eq!(verdict.updated_tool_output, None);
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
