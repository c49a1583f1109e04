use agentctx_protocol::ExtraFields;
use agentctx_protocol::ResponseItem;

use agentctx_protocol::ENVIRONMENT_CONTEXT_CLOSE_TAG;
use agentctx_protocol::ENVIRONMENT_CONTEXT_OPEN_TAG;

use super::*;

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
