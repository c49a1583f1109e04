use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::provider_config::PromptCacheTtl;

fn user(text: &str) -> Value {
    json!({ "role": "user", "content": [{ "type": "text", "text": text }] })
}

fn assistant(text: &str) -> Value {
    json!({ "role": "assistant", "content": [{ "type": "text", "text": text }] })
}

fn marked(text: &str) -> Value {
    json!({
        "role": "user",
        "content": [{ "type": "text", "text": text, "cache_control": { "type": "ephemeral" } }]
    })
}

#[test]
fn tools_system_and_the_two_newest_user_turns_are_marked() {
    let mut tools = json!([{ "name": "a" }, { "name": "b" }]);
    let mut system = json!("be terse");
    let mut messages = json!([
        user("1"),
        assistant("a"),
        user("2"),
        assistant("b"),
        user("3")
    ]);

    add_cache_breakpoints(
        Some(&mut tools),
        Some(&mut system),
        &mut messages,
        PromptCacheTtl::FiveMinutes,
    );

    assert_eq!(
        tools,
        json!([{ "name": "a" }, { "name": "b", "cache_control": { "type": "ephemeral" } }])
    );
    assert_eq!(
        system,
        json!([{ "type": "text", "text": "be terse", "cache_control": { "type": "ephemeral" } }])
    );
    assert_eq!(
        messages,
        json!([
            user("1"),
            assistant("a"),
            marked("2"),
            assistant("b"),
            marked("3")
        ])
    );
}

#[test]
fn thinking_blocks_are_never_marked_and_the_total_stays_at_four() {
    let mut messages = json!([
        user("1"),
        { "role": "user", "content": [{ "type": "redacted_thinking", "data": "x" }] },
        user("2"),
    ]);
    add_cache_breakpoints(None, None, &mut messages, PromptCacheTtl::FiveMinutes);
    assert_eq!(
        messages,
        json!([
            marked("1"),
            { "role": "user", "content": [{ "type": "redacted_thinking", "data": "x" }] },
            marked("2"),
        ])
    );
}
