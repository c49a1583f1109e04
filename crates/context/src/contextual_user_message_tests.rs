use agentctx_protocol::ExtraFields;
use agentctx_protocol::ResponseItem;

use agentctx_protocol::ENVIRONMENT_CONTEXT_CLOSE_TAG;
use agentctx_protocol::ENVIRONMENT_CONTEXT_OPEN_TAG;

use super::*;

#[test]
fn fragments_are_recognised_case_insensitively_with_whitespace() {
    assert!(is_contextual_user_fragment(
        "  <ENVIRONMENT_CONTEXT>\n  <cwd>/r</cwd>\n</environment_context>\n"
    ));
    assert!(is_contextual_user_fragment(
        "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>"
    ));
    assert!(is_contextual_user_fragment("<skill>\nname: x\n</skill>"));
    assert!(is_contextual_user_fragment(
        "<user_shell_command>ls</user_shell_command>"
    ));
    assert!(is_contextual_user_fragment(
        "<turn_aborted>\nx\n</turn_aborted>"
    ));
    assert!(is_contextual_user_fragment(
        "<subagent_notification>done</subagent_notification>"
    ));
    assert!(is_contextual_user_fragment(
        "<user_instructions>x</user_instructions>"
    ));
    assert!(is_contextual_user_fragment(
        "<system-reminder>\nhi\n</system-reminder>"
    ));
}

#[test]
fn user_text_is_not_contextual() {
    assert!(!is_contextual_user_fragment("please fix the bug"));
    // The start marker alone is not enough: the end marker must close the text.
    assert!(!is_contextual_user_fragment(
        "<environment_context> is what I mean"
    ));
    assert!(!is_contextual_user_fragment("<skill>"));
}

#[test]
fn message_level_predicate_only_applies_to_user_messages() {
    let env = wrap_contextual_fragment(
        ENVIRONMENT_CONTEXT_OPEN_TAG,
        "  <cwd>/r</cwd>",
        ENVIRONMENT_CONTEXT_CLOSE_TAG,
    );
    let mixed = ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: vec![
            ContentItem::input_text("hello"),
            ContentItem::input_text(env),
        ],
        extra: ExtraFields::new(),
    };
    let ResponseItem::Message { content, .. } = &mixed else {
        unreachable!("a message")
    };
    assert!(is_contextual_user_message_content(content));
}
