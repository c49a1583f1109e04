//! [`SessionEvent`]: what a running session reports, so a CLI, TUI or IDE can render it.
//!
//! Compaction, micro-compaction and plan-mode changes travel as the protocol's
//! [`LoopEvent`] (the same values the loop driver and replay report); the rest is the turn's
//! own progress. See docs/design/core.md, "Events".

use agentctx_protocol::LoopEvent;
use serde::Serialize;

/// One event of a session, sent on the session's channel in the order things happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionEvent {
    /// The context engine decided (before a turn, before a request, after a failure or after
    /// tool outputs): what it judged, against which limit, and what it asked for.
    Decision(agentctx_engine::Decision),
    /// A turn started.
    TurnStarted {
        /// 1-based turn number.
        turn: i32,
    },
    /// A model request is about to be sent.
    RequestStarted {
        /// 1-based number of the request within the turn.
        request: u32,
        /// Reminders placed before this request.
        reminders: usize,
    },
    /// A piece of assistant text.
    TextDelta {
        /// The text.
        delta: String,
    },
    /// A piece of reasoning text.
    ReasoningDelta {
        /// The text.
        delta: String,
    },
    /// A complete assistant message.
    AssistantMessage {
        /// Its text.
        text: String,
    },
    /// A tool call is about to run.
    ToolCallStarted {
        /// The call id.
        call_id: String,
        /// The tool.
        name: String,
        /// The raw JSON arguments.
        arguments: String,
    },
    /// A tool call finished.
    ToolCallCompleted {
        /// The call id.
        call_id: String,
        /// The tool.
        name: String,
        /// Whether it succeeded.
        success: bool,
        /// What the model sees.
        output: String,
    },
    /// The context usage after a request, as the compaction trigger sees it.
    TokenUsage {
        /// Tokens the next request will occupy.
        used_tokens: u64,
        /// The window minus the reserved output.
        effective_window: u64,
        /// Percent of the effective window left.
        percent_left: u8,
    },
    /// A compaction, micro-compaction or plan-mode event. As JSON it is
    /// `{"type": "loop", "event": {"type": "compaction_completed", …}}`: the protocol's event
    /// keeps its own `type`, one level down, so no object holds two.
    #[serde(serialize_with = "serialize_loop_event")]
    Loop(LoopEvent),
    /// The model's answer stopped at its output limit. What it wrote is kept (and was shown);
    /// a tool call cut short is not run; the turn asks the model to continue where it stopped,
    /// at most `max_continuations` times. A host shows it as a notice.
    OutputTruncated {
        /// The provider's reason, as it spelled it (`length`, `max_tokens`,
        /// `max_output_tokens`).
        reason: String,
        /// Tool calls cut short and not run.
        cut_tool_calls: usize,
        /// Whether the model is asked to continue (false once the turn's continuations are
        /// used up; the turn then ends with the text it has).
        continuing: bool,
        /// How many continuations this turn has asked for, this one included.
        continuation: u32,
        /// The most a turn asks for.
        max_continuations: u32,
    },
    /// Something the user should know that does not stop the turn.
    Warning {
        /// The message.
        message: String,
    },
    /// An MCP server failed to start or died; its tools were withdrawn. Sent once per server.
    McpServerUnavailable {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
    /// The turn finished.
    TurnCompleted {
        /// 1-based turn number.
        turn: i32,
        /// The last assistant message, if any.
        last_message: Option<String>,
    },
    /// The turn was cancelled; the rollout holds everything recorded until then.
    TurnAborted {
        /// 1-based turn number.
        turn: i32,
    },
}

/// [`SessionEvent::Loop`] as `{"event": …}` inside the variant's tagged object.
fn serialize_loop_event<S: serde::Serializer>(
    event: &LoopEvent,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = serializer.serialize_map(Some(1))?;
    map.serialize_entry("event", event)?;
    map.end()
}

#[cfg(test)]
#[path = "event_tests.rs"]
mod tests;
