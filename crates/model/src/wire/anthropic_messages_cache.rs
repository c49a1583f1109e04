//! Prompt-cache breakpoints of an Anthropic request.
//!
//! Anthropic caches a request's prefix, in the order tools, system, messages, up to and
//! including each block marked `cache_control: {"type": "ephemeral"}`; a later request whose
//! prefix up to a marked block is byte-identical reads it back at a tenth of the input price.
//! A request may carry at most 4 breakpoints, and a breakpoint finds an earlier cache entry by
//! looking back at most 20 blocks
//! (<https://docs.claude.com/en/docs/build-with-claude/prompt-caching>).
//!
//! The breakpoints placed here: the last tool definition, the system prompt, and the last block
//! of each of the newest [`USER_TURN_BREAKPOINTS`] user messages. The history is append-only
//! (reminders placed at the tail, see the reminders crate), so the newest user message of one
//! request is the second newest of the next: that request reads the prefix the previous one
//! wrote, and writes one more. The markers themselves are not part of what the cache compares,
//! so moving them does not break the prefix.
//!
//! See docs/design/model-streaming.md, "Prompt caching".

use serde_json::Value;
use serde_json::json;

use crate::provider_config::PromptCacheTtl;

/// The beta that opened the 1-hour cache (`ttl: "1h"`); sent with it, as the prompt-caching
/// documentation's examples did when the duration was introduced.
pub(crate) const EXTENDED_CACHE_TTL_BETA: &str = "extended-cache-ttl-2025-04-11";

/// The most breakpoints Anthropic accepts in one request.
pub(crate) const MAX_CACHE_BREAKPOINTS: usize = 4;

/// User messages marked, newest first: the newest writes this request's prefix, the one before
/// it reads what the previous request wrote.
pub(crate) const USER_TURN_BREAKPOINTS: usize = 2;

// Tools and system take one breakpoint each; the user turns must fit in what is left.
const _: () = assert!(USER_TURN_BREAKPOINTS + 2 <= MAX_CACHE_BREAKPOINTS);

fn ephemeral(ttl: PromptCacheTtl) -> Value {
    match ttl {
        PromptCacheTtl::FiveMinutes => json!({ "type": "ephemeral" }),
        PromptCacheTtl::OneHour => json!({ "type": "ephemeral", "ttl": "1h" }),
    }
}

/// Marks `block` (a JSON object) as a breakpoint; false when it cannot carry one.
fn mark(block: &mut Value, ttl: PromptCacheTtl) -> bool {
    // Thinking blocks cannot be marked directly; they are cached as part of the prefix.
    let kind = block.get("type").and_then(Value::as_str);
    if matches!(kind, Some("thinking" | "redacted_thinking")) {
        return false;
    }
    match block {
        Value::Object(map) => {
            map.insert("cache_control".into(), ephemeral(ttl));
            true
        }
        _ => false,
    }
}

/// Adds the breakpoints to a request's parts: `tools` (an array), `system` (a string, turned
/// into one text block), `messages` (an array of role/content messages), each with the
/// lifetime `ttl` (all the same, so no longer-lived entry follows a shorter one, which
/// Anthropic refuses).
pub(crate) fn add_cache_breakpoints(
    tools: Option<&mut Value>,
    system: Option<&mut Value>,
    messages: &mut Value,
    ttl: PromptCacheTtl,
) {
    let mut used = 0;
    if let Some(last) = tools
        .and_then(Value::as_array_mut)
        .and_then(|tools| tools.last_mut())
        && mark(last, ttl)
    {
        used += 1;
    }
    if let Some(system) = system
        && let Some(text) = system.as_str()
    {
        *system = json!([{ "type": "text", "text": text, "cache_control": ephemeral(ttl) }]);
        used += 1;
    }
    let budget = USER_TURN_BREAKPOINTS.min(MAX_CACHE_BREAKPOINTS.saturating_sub(used));
    let Some(messages) = messages.as_array_mut() else {
        return;
    };
    let user_messages = messages
        .iter_mut()
        .rev()
        .filter(|message| message.get("role").and_then(Value::as_str) == Some("user"));
    let mut marked = 0;
    for message in user_messages {
        if marked == budget {
            break;
        }
        let last_block = message
            .get_mut("content")
            .and_then(Value::as_array_mut)
            .and_then(|blocks| blocks.last_mut());
        if let Some(block) = last_block
            && mark(block, ttl)
        {
            marked += 1;
        }
    }
}

#[cfg(test)]
#[path = "anthropic_messages_cache_tests.rs"]
mod tests;
