use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::ResponseItem;
use agentctx_rollout::RecordFlags;
use pretty_assertions::assert_eq;

use super::is_turn_start;

fn marked_injected(text: &str) -> ResponseItem {
    let mut item = ResponseItem::user_text(text);
    item.set_injected(true);
    item
}

#[test]
fn only_messages_the_user_typed_start_turns() {
    let plain = RecordFlags::default();
    let injected = RecordFlags {
        injected: true,
        ..RecordFlags::default()
    };
    let image_only = ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: vec![ContentItem::InputImage {
            image_url: "data:image/png;base64,AAAA".to_string(),
            detail: None,
        }],
        extra: ExtraFields::new(),
    };
    let cases = [
        (ResponseItem::user_text("fix the test"), plain, true),
        (ResponseItem::user_text("fix the test"), injected, false),
        (image_only, plain, true),
        (
            ResponseItem::user_text(
                "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>",
            ),
            plain,
            false,
        ),
        (
            ResponseItem::user_text(
                "# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>",
            ),
            plain,
            false,
        ),
        (
            ResponseItem::user_text("<system-reminder>\nfile changed\n</system-reminder>"),
            plain,
            false,
        ),
        (
            ResponseItem::user_text("<local-command-stdout>Set model</local-command-stdout>"),
            plain,
            false,
        ),
        (
            ResponseItem::user_text("[Request interrupted by user for tool use]"),
            plain,
            false,
        ),
        (
            ResponseItem::user_text(
                "<task-notification>\n<status>done</status>\n</task-notification>",
            ),
            plain,
            false,
        ),
        // Alone, a command record is the user's; the importer marks the locally answered ones.
        (
            ResponseItem::user_text("<command-name>/review</command-name>"),
            plain,
            true,
        ),
        (
            marked_injected("<command-name>/compact</command-name>"),
            plain,
            false,
        ),
        (ResponseItem::assistant_text("done"), plain, false),
        (ResponseItem::developer_text("rules"), plain, false),
    ];
    let results: Vec<(String, bool)> = cases
        .iter()
        .map(|(item, flags, _)| {
            (
                item.message_text().unwrap_or_default(),
                is_turn_start(item, *flags),
            )
        })
        .collect();
    let expected: Vec<(String, bool)> = cases
        .iter()
        .map(|(item, _, start)| (item.message_text().unwrap_or_default(), *start))
        .collect();
    assert_eq!(results, expected);
}
