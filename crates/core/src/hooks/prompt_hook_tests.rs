use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

#[test]
fn arguments_are_replaced_or_appended() {
    let input = json!({"hook_event_name": "Stop"});
    assert_eq!(
        prompt_text("Judge: $ARGUMENTS.", &input),
        r#"Judge: {"hook_event_name":"Stop"}."#
    );
    assert_eq!(
        prompt_text("Judge this", &input),
        "Judge this\n\n{\"hook_event_name\":\"Stop\"}"
    );
}

#[test]
fn the_documented_reply_shape_is_read() {
    assert_eq!(parse_reply(r#"{"ok": true}"#), Ok((true, None)));
    assert_eq!(
        parse_reply("```json\n{\"ok\": false, \"reason\": \"tests fail\"}\n```"),
        Ok((false, Some("tests fail".to_string())))
    );
    assert!(parse_reply("yes").is_err());
    assert!(parse_reply(r#"{"allowed": true}"#).is_err());
}

#[test]
fn a_no_blocks_and_a_permission_request_is_allowed_or_denied() {
    assert_eq!(
        decision_json(HookEvent::Stop, false, Some("go on".into())),
        json!({"decision": "block", "reason": "go on"})
    );
    assert_eq!(decision_json(HookEvent::Stop, true, None), json!({}));
    assert_eq!(
        decision_json(HookEvent::PermissionRequest, false, Some("no".into()))["hookSpecificOutput"]
            ["decision"],
        json!({"behavior": "deny", "message": "no"})
    );
    assert_eq!(
        decision_json(HookEvent::PermissionRequest, true, None)["hookSpecificOutput"]["decision"]["behavior"],
        "allow"
    );
}
