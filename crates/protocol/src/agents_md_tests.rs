use std::path::Path;

use pretty_assertions::assert_eq;

use super::*;
use crate::context_markers::is_contextual_user_fragment;
use crate::item_classification::is_user_turn_start;
use crate::models::ExtraFields;

#[test]
fn the_message_is_codex_s_text_in_a_user_message() {
    let message = agents_md_message(Path::new("/home/mira/tally"), "Run `cargo test`.");
    assert_eq!(message.role(), Some("user"));
    assert_eq!(
        message.message_text().as_deref(),
        Some(
            "# AGENTS.md instructions for /home/mira/tally\n\n<INSTRUCTIONS>\nRun `cargo test`.\n</INSTRUCTIONS>"
        )
    );
    assert!(is_agents_md_message(&message));
    // It is harness context: a contextual fragment, never a user turn.
    assert!(
        message
            .message_text()
            .is_some_and(|text| is_contextual_user_fragment(&text))
    );
    assert!(!is_user_turn_start(&message));
}

#[test]
fn agents_md_messages_are_recognised_in_either_codex_form() {
    let with_role = |role: &str, text: &str| ResponseItem::Message {
        id: None,
        role: role.to_string(),
        content: vec![ContentItem::input_text(text)],
        extra: ExtraFields::new(),
    };
    // (case, item, an AGENTS.md message).
    let cases = [
        (
            "current form",
            with_role(
                "user",
                "# AGENTS.md instructions for /r\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>",
            ),
            true,
        ),
        (
            "current form, other case and surrounding whitespace",
            with_role(
                "user",
                "\n# agents.md INSTRUCTIONS for /r\n\n<INSTRUCTIONS>\nx\n</instructions>\n",
            ),
            true,
        ),
        (
            "older form",
            with_role("user", "<user_instructions>\nbe nice\n</user_instructions>"),
            true,
        ),
        (
            "one part of a bundled initial context",
            ResponseItem::Message {
                id: None,
                role: "user".to_string(),
                content: vec![
                    ContentItem::input_text(
                        "# AGENTS.md instructions for /r\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>",
                    ),
                    ContentItem::input_text("<environment_context>\n</environment_context>"),
                ],
                extra: ExtraFields::new(),
            },
            true,
        ),
        (
            "no end marker",
            with_role(
                "user",
                "# AGENTS.md instructions for /r\n\n<INSTRUCTIONS>\nx",
            ),
            false,
        ),
        (
            "the heading only mentioned",
            with_role("user", "what does # AGENTS.md instructions for /r mean?"),
            false,
        ),
        (
            "environment context",
            with_role("user", "<environment_context>\n</environment_context>"),
            false,
        ),
        (
            "a developer message",
            with_role(
                "developer",
                "# AGENTS.md instructions for /r\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>",
            ),
            false,
        ),
    ];
    let results: Vec<(&str, bool)> = cases
        .iter()
        .map(|(case, item, _)| (*case, is_agents_md_message(item)))
        .collect();
    let expected: Vec<(&str, bool)> = cases
        .iter()
        .map(|(case, _, expected)| (*case, *expected))
        .collect();
    assert_eq!(results, expected);
}
