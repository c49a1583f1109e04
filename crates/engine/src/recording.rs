//! What a host records so that a replay of its rollout judges and rebuilds its requests as the
//! live engine did: the session's head ([`session_meta`]: working directory, originator and the
//! instructions every request sends), and in each `turn_context` line the window and output limit
//! ([`RECORDED_WINDOW_FIELD`]), and, when they changed, the tools offered
//! ([`RECORDED_TOOLS_FIELD`]) with the compaction classes the host declared for them
//! ([`RECORDED_TOOL_CLASSES_FIELD`]). The replay reads them back in
//! `replay/session_replay/engine_feed.rs`.

use std::path::Path;

use agentctx_model::ToolSpec;
use agentctx_protocol::SessionMetaLine;
use agentctx_protocol::TurnContextItem;

use crate::context_engine::ContextEngine;
use crate::replay::AGENTCTX_ORIGINATOR;
use crate::replay::RECORDED_TOOLS_FIELD;
use crate::replay::RECORDED_WINDOW_FIELD;

/// The field of a `turn_context` line in which agentctx records the compaction classes of the
/// tools recorded in [`RECORDED_TOOLS_FIELD`] (`{"grep": "search", "todo_write": null}`): the
/// replay's micro tier clears the results the live one cleared.
pub const RECORDED_TOOL_CLASSES_FIELD: &str = "agentctx_tool_classes";

/// The head of a session agentctx records: its working directory, the agentctx originator (a
/// replay then reads the fields above) and, as Codex records them, the instructions every
/// request sends (`base_instructions`), which a replay sends with each request it rebuilds.
pub fn session_meta(cwd: &Path, instructions: &str) -> SessionMetaLine {
    let instructions = serde_json::json!({ "text": instructions });
    SessionMetaLine {
        cwd: Some(cwd.display().to_string()),
        originator: Some(AGENTCTX_ORIGINATOR.to_string()),
        extra: serde_json::Map::from_iter([("base_instructions".to_string(), instructions)]),
        ..SessionMetaLine::default()
    }
}

impl ContextEngine {
    /// Adds to `turn_context` the window and output limit this engine judges requests against
    /// and, when `tools` is given (the tools offered changed since the last line recorded
    /// them), the tools and the classes the host declared for them
    /// ([`ContextEngine::set_tool_classes`]).
    pub fn annotate_turn_context(
        &self,
        turn_context: &mut TurnContextItem,
        tools: Option<&[ToolSpec]>,
    ) {
        let window = serde_json::json!({
            "context_window": self.context_window(),
            "max_output_tokens": self.max_output_tokens(),
        });
        let extra = &mut turn_context.extra;
        extra.insert(RECORDED_WINDOW_FIELD.to_string(), window);
        let Some(tools) = tools else { return };
        let Ok(specs) = serde_json::to_value(tools) else {
            tracing::warn!("the tools of the turn could not be recorded");
            return;
        };
        extra.insert(RECORDED_TOOLS_FIELD.to_string(), specs);
        let names = tools.iter().map(|tool| tool.name.as_str());
        let classes = self.tool_classes().of_names(names);
        if classes.is_empty() {
            return;
        }
        if let Ok(classes) = serde_json::to_value(&classes) {
            extra.insert(RECORDED_TOOL_CLASSES_FIELD.to_string(), classes);
        }
    }
}

#[cfg(test)]
#[path = "recording_tests.rs"]
mod tests;
