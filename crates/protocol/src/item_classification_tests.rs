use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::models::ExtraFields;

fn item(value: serde_json::Value) -> ResponseItem {
    serde_json::from_value(value).unwrap()
}

fn user_parts(content: Vec<ContentItem>) -> ResponseItem {
    ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content,
        extra: ExtraFields::new(),
    }
}

fn injected(text: &str) -> ResponseItem {
    let mut item = ResponseItem::user_text(text);
    item.set_injected(true);
    item
}

#[test]
fn model_generated_items_are_codex_s() {
    // (item, model generated). The replay's request segmenter counted a server-side
    // compaction as not generated, the reminder clock on resume also left out custom tool,
    // local shell and web search calls; codex counts them all.
    let cases = [
        (ResponseItem::assistant_text("done"), true),
        (
            item(json!({"type": "reasoning", "summary": [], "encrypted_content": "e"})),
            true,
        ),
        (ResponseItem::function_call("c1", "shell", "{}"), true),
        (
            item(
                json!({"type": "custom_tool_call", "call_id": "c2", "name": "apply_patch", "input": "*** Begin Patch"}),
            ),
            true,
        ),
        (
            item(
                json!({"type": "local_shell_call", "call_id": "c3", "action": {"type": "exec", "command": ["ls"]}}),
            ),
            true,
        ),
        (
            item(json!({"type": "web_search_call", "action": {"type": "search", "query": "q"}})),
            true,
        ),
        (
            item(json!({"type": "compaction", "encrypted_content": "blob"})),
            true,
        ),
        (ResponseItem::user_text("fix it"), false),
        (ResponseItem::developer_text("rules"), false),
        (ResponseItem::text_message("system", "prompt"), false),
        (ResponseItem::function_call_output("c1", "ok"), false),
        (
            item(json!({"type": "custom_tool_call_output", "call_id": "c2", "output": "ok"})),
            false,
        ),
        (
            item(json!({"type": "ghost_snapshot", "ghost_commit": {}})),
            false,
        ),
        (item(json!({"type": "future_item", "x": 1})), false),
    ];
    let results: Vec<(String, bool)> = cases
        .iter()
        .map(|(item, _)| (item.type_name().to_string(), is_model_generated(item)))
        .collect();
    let expected: Vec<(String, bool)> = cases
        .iter()
        .map(|(item, generated)| (item.type_name().to_string(), *generated))
        .collect();
    assert_eq!(results, expected);
}

#[test]
fn only_messages_the_user_typed_start_turns() {
    let image = ContentItem::InputImage {
        image_url: "data:image/png;base64,AAAA".to_string(),
        detail: None,
    };
    // (case, item, starts a turn).
    let cases = [
        ("typed text", ResponseItem::user_text("fix the test"), true),
        (
            "typed text, surrounding spaces",
            ResponseItem::user_text("  fix the test  "),
            true,
        ),
        ("an image alone", user_parts(vec![image.clone()]), true),
        (
            "an image with its codex wrapper",
            user_parts(vec![
                ContentItem::input_text("<image>"),
                image,
                ContentItem::input_text("</image>"),
            ]),
            true,
        ),
        // The replay's copy said no to a message without parts; codex's rule says yes.
        ("no part at all", user_parts(Vec::new()), true),
        (
            "a slash command the importer did not mark",
            ResponseItem::user_text("<command-name>/review</command-name>"),
            true,
        ),
        (
            "a start marker only mentioned",
            ResponseItem::user_text("<environment_context> is what I mean"),
            true,
        ),
        (
            "marked injected",
            injected("<command-name>/compact</command-name>"),
            false,
        ),
        ("injected plain text", injected("Caveat: …"), false),
        (
            "environment context",
            ResponseItem::user_text(
                "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>",
            ),
            false,
        ),
        (
            "AGENTS.md instructions",
            ResponseItem::user_text(
                "# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>",
            ),
            false,
        ),
        (
            "older user instructions",
            ResponseItem::user_text("<user_instructions>\nbe nice\n</user_instructions>"),
            false,
        ),
        (
            "a skill body",
            ResponseItem::user_text("<skill>\n<name>x</name>\n</skill>"),
            false,
        ),
        (
            "a system reminder",
            ResponseItem::user_text("<system-reminder>\nfile changed\n</system-reminder>"),
            false,
        ),
        (
            "a newer codex block",
            ResponseItem::user_text("<goal_context>\nkeep the tests green\n</goal_context>"),
            false,
        ),
        // The context manager's and the session reader's copies took Claude Code's harness
        // text the importer had not marked for a turn; the replay's did not.
        (
            "Claude Code command output",
            ResponseItem::user_text("<local-command-stdout>Set model</local-command-stdout>"),
            false,
        ),
        (
            "Claude Code interruption",
            ResponseItem::user_text("[Request interrupted by user for tool use]"),
            false,
        ),
        (
            "Claude Code task notification",
            ResponseItem::user_text(
                "<task-notification>\n<status>done</status>\n</task-notification>",
            ),
            false,
        ),
        // One harness part makes the whole message context (codex's rule).
        (
            "typed text with an environment context part",
            user_parts(vec![
                ContentItem::input_text("hello"),
                ContentItem::input_text("<environment_context>\n</environment_context>"),
            ]),
            false,
        ),
        (
            "typed text after a reminder part",
            user_parts(vec![
                ContentItem::input_text("<system-reminder>\nx\n</system-reminder>"),
                ContentItem::input_text("fix it"),
            ]),
            false,
        ),
        (
            "an assistant message",
            ResponseItem::assistant_text("done"),
            false,
        ),
        (
            "a developer message",
            ResponseItem::developer_text("rules"),
            false,
        ),
        (
            "a tool call",
            ResponseItem::function_call("c", "shell", "{}"),
            false,
        ),
    ];
    let results: Vec<(&str, bool)> = cases
        .iter()
        .map(|(case, item, _)| (*case, is_user_turn_start(item)))
        .collect();
    let expected: Vec<(&str, bool)> = cases
        .iter()
        .map(|(case, _, starts)| (*case, *starts))
        .collect();
    assert_eq!(results, expected);
}
