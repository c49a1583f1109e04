//! What a provider is asked to do to the context on its side during a normal request: the
//! `context_management` field of the Responses API and of Anthropic's Messages API, configured
//! per provider (`[model_providers.<id>.context_management]`), every part off by default.
//!
//! - Responses server-side compaction: `context_management: [{"type": "compaction",
//!   "compact_threshold": N}]`; past `N` rendered tokens the server compacts and streams an
//!   opaque `compaction` item (<https://developers.openai.com/api/docs/guides/compaction>,
//!   "Server-side compaction").
//! - Anthropic context editing: `context_management: {"edits": [...]}` with
//!   `clear_thinking_20251015` (listed first, as the documentation requires when strategies are
//!   combined) and `clear_tool_uses_20250919`, under the beta header
//!   [`CONTEXT_MANAGEMENT_BETA`]
//!   (<https://platform.claude.com/docs/en/build-with-claude/context-editing>).
//! - Anthropic server-side compaction: a `compact_20260112` edit under the beta header
//!   [`COMPACTION_BETA`]; the answer starts with a `compaction` block holding a readable summary
//!   (<https://platform.claude.com/docs/en/build-with-claude/compaction>).
//!
//! The wire JSON is built here, one function per API, so the request builders only place it.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

/// The `anthropic-beta` value that turns on context editing.
pub const CONTEXT_MANAGEMENT_BETA: &str = "context-management-2025-06-27";
/// The `anthropic-beta` value that turns on server-side compaction (`compact_20260112`).
pub const COMPACTION_BETA: &str = "compact-2026-01-12";

/// The edit type of Anthropic's tool result clearing.
pub(crate) const CLEAR_TOOL_USES_EDIT: &str = "clear_tool_uses_20250919";
/// The edit type of Anthropic's thinking block clearing.
pub(crate) const CLEAR_THINKING_EDIT: &str = "clear_thinking_20251015";
/// The edit type of Anthropic's server-side compaction.
pub(crate) const COMPACT_EDIT: &str = "compact_20260112";

/// Provider-side context management of one provider. Each part applies to one wire API and is
/// ignored by the others; every part is off unless set.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ContextManagementConfig {
    /// Responses API: the server has `POST /responses/compact`, used by remote compaction
    /// [default: on for `api.openai.com` and Azure OpenAI (`*.openai.azure.com`), off
    /// elsewhere].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact_endpoint: Option<bool>,
    /// Responses API: compact on the server during a normal request once the rendered context
    /// passes this many tokens (`context_management` with a `compaction` entry) [default: off].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact_threshold: Option<u64>,
    /// Anthropic Messages: clear old tool results (`clear_tool_uses_20250919`) [default: off].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clear_tool_uses: Option<ClearToolUses>,
    /// Anthropic Messages: clear thinking blocks of earlier turns (`clear_thinking_20251015`);
    /// sent only with requests that think [default: off].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clear_thinking: Option<ClearThinking>,
    /// Anthropic Messages: compact on the server (`compact_20260112`) [default: off].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction: Option<AnthropicCompaction>,
}

/// When Anthropic's tool result clearing starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ClearTrigger {
    /// Once the prompt has this many input tokens.
    InputTokens(u64),
    /// Once the prompt holds this many tool uses.
    ToolUses(u64),
}

/// Anthropic's `clear_tool_uses_20250919` edit; an unset field takes the API's default.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ClearToolUses {
    /// When clearing starts, e.g. `{ input_tokens = 100000 }` [API default: 100,000 input
    /// tokens].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<ClearTrigger>,
    /// The most recent tool uses kept whole [API default: 3].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep: Option<u64>,
    /// The fewest input tokens one clearing removes, so each break of the prompt cache pays
    /// for itself [API default: none].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clear_at_least: Option<u64>,
    /// Tools whose results are never cleared.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exclude_tools: Vec<String>,
    /// Also clear the tool calls' inputs, not only their results [API default: false].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clear_tool_inputs: Option<bool>,
}

/// How many assistant turns keep their thinking blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum KeepThinking {
    /// The thinking of the last this-many assistant turns.
    Turns(u64),
    /// Every thinking block (`"all"`), which keeps the prompt cache whole.
    All(AllThinking),
}

/// The keyword `"all"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum AllThinking {
    /// Keep all thinking blocks.
    #[serde(rename = "all")]
    All,
}

/// Anthropic's `clear_thinking_20251015` edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ClearThinking {
    /// Thinking kept: a number of turns, or `"all"` [API default: 1 turn].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep: Option<KeepThinking>,
}

/// Anthropic's `compact_20260112` edit.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AnthropicCompaction {
    /// Input tokens that start a compaction [API default: 150,000; at least 50,000].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<u64>,
    /// Stop the answer right after the compaction block (`stop_reason: "compaction"`) so the
    /// host can add to the context before the model goes on [API default: false].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pause_after_compaction: Option<bool>,
    /// The summary prompt, replacing the API's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

impl ContextManagementConfig {
    /// This configuration with every field `overlay` sets replaced.
    pub fn merged_with(&self, overlay: &Self) -> Self {
        Self {
            compact_endpoint: overlay.compact_endpoint.or(self.compact_endpoint),
            compact_threshold: overlay.compact_threshold.or(self.compact_threshold),
            clear_tool_uses: overlay
                .clear_tool_uses
                .clone()
                .or_else(|| self.clear_tool_uses.clone()),
            clear_thinking: overlay.clear_thinking.or(self.clear_thinking),
            compaction: overlay
                .compaction
                .clone()
                .or_else(|| self.compaction.clone()),
        }
    }

    /// The Responses `context_management` field, when server-side compaction is on.
    pub(crate) fn responses_field(&self) -> Option<Value> {
        let threshold = self.compact_threshold?;
        Some(json!([{ "type": "compaction", "compact_threshold": threshold }]))
    }

    /// The Anthropic `context_management` field for a request that thinks (`thinking`) or
    /// not; `None` when nothing is on. [`anthropic_betas`] names the betas it needs.
    pub(crate) fn anthropic_field(&self, thinking: bool) -> Option<Value> {
        let mut edits = Vec::new();
        // Thinking first: "the clear_thinking_20251015 strategy must be listed first in the
        // edits array" when strategies are combined (context editing documentation).
        if let Some(clear) = self.clear_thinking.filter(|_| thinking) {
            let mut edit = edit_of(CLEAR_THINKING_EDIT);
            match clear.keep {
                Some(KeepThinking::Turns(turns)) => {
                    edit.insert("keep".into(), threshold("thinking_turns", turns));
                }
                Some(KeepThinking::All(AllThinking::All)) => {
                    edit.insert("keep".into(), json!("all"));
                }
                None => {}
            }
            edits.push(Value::Object(edit));
        }
        if let Some(clear) = &self.clear_tool_uses {
            let mut edit = edit_of(CLEAR_TOOL_USES_EDIT);
            match clear.trigger {
                Some(ClearTrigger::InputTokens(value)) => {
                    edit.insert("trigger".into(), threshold("input_tokens", value));
                }
                Some(ClearTrigger::ToolUses(value)) => {
                    edit.insert("trigger".into(), threshold("tool_uses", value));
                }
                None => {}
            }
            if let Some(keep) = clear.keep {
                edit.insert("keep".into(), threshold("tool_uses", keep));
            }
            if let Some(tokens) = clear.clear_at_least {
                edit.insert("clear_at_least".into(), threshold("input_tokens", tokens));
            }
            if !clear.exclude_tools.is_empty() {
                edit.insert("exclude_tools".into(), json!(clear.exclude_tools));
            }
            if let Some(inputs) = clear.clear_tool_inputs {
                edit.insert("clear_tool_inputs".into(), json!(inputs));
            }
            edits.push(Value::Object(edit));
        }
        if let Some(compaction) = &self.compaction {
            let mut edit = edit_of(COMPACT_EDIT);
            if let Some(tokens) = compaction.trigger {
                edit.insert("trigger".into(), threshold("input_tokens", tokens));
            }
            if let Some(pause) = compaction.pause_after_compaction {
                edit.insert("pause_after_compaction".into(), json!(pause));
            }
            if let Some(instructions) = &compaction.instructions {
                edit.insert("instructions".into(), json!(instructions));
            }
            edits.push(Value::Object(edit));
        }
        (!edits.is_empty()).then(|| json!({ "edits": edits }))
    }
}

/// The `anthropic-beta` values an Anthropic request body needs for its `context_management`
/// edits: [`CONTEXT_MANAGEMENT_BETA`] for context editing, [`COMPACTION_BETA`] for
/// compaction. Read from the body actually sent, so a header never names an edit the body left
/// out (or the other way round).
pub(crate) fn anthropic_betas(body: &Value) -> Vec<&'static str> {
    let kinds: Vec<&str> = body
        .get("context_management")
        .and_then(|field| field.get("edits"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|edit| edit.get("type").and_then(Value::as_str))
        .collect();
    let mut betas = Vec::new();
    if kinds
        .iter()
        .any(|kind| [CLEAR_TOOL_USES_EDIT, CLEAR_THINKING_EDIT].contains(kind))
    {
        betas.push(CONTEXT_MANAGEMENT_BETA);
    }
    if kinds.contains(&COMPACT_EDIT) {
        betas.push(COMPACTION_BETA);
    }
    betas
}

fn edit_of(kind: &str) -> Map<String, Value> {
    let mut edit = Map::new();
    edit.insert("type".into(), json!(kind));
    edit
}

/// A `{"type": kind, "value": value}` threshold, as every Anthropic edit spells one.
fn threshold(kind: &str, value: u64) -> Value {
    json!({ "type": kind, "value": value })
}

#[cfg(test)]
#[path = "context_management_tests.rs"]
mod tests;
