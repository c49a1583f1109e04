//! The values the engine's seams take and return: what a turn's start recorded
//! ([`TurnStart`]), a request prepared ([`PreparedRequest`], with the micro-compaction done
//! before it), what the host puts around the input ([`PromptParts`]) and a compaction installed
//! ([`Compaction`]).

use std::path::PathBuf;

use agentctx_compact::ContextUsage;
use agentctx_model::ReasoningOptions;
use agentctx_model::ToolSpec;
use agentctx_protocol::CompactedItem;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::TurnContextItem;

use crate::compaction_policy::CompactPoint;
use crate::reminder_pipeline::FiredReminder;

/// What [`crate::ContextEngine::begin_turn`] recorded, for the host to persist in that order.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnStart {
    /// The initial context in full, or the settings diff (possibly empty).
    pub context_updates: Vec<ResponseItem>,
    /// The turn's settings line.
    pub turn_context: TurnContextItem,
    /// The user's message.
    pub user_message: ResponseItem,
}

impl TurnStart {
    /// The lines to record, in order: the context updates, the `turn_context` line (annotate it
    /// first with [`crate::ContextEngine::annotate_turn_context`]) and the user's message.
    pub fn rollout_items(self) -> Vec<RolloutItem> {
        let updates = self
            .context_updates
            .into_iter()
            .map(RolloutItem::ResponseItem);
        let turn_context = RolloutItem::TurnContext(self.turn_context);
        let user_message = RolloutItem::ResponseItem(self.user_message);
        updates.chain([turn_context, user_message]).collect()
    }
}

/// Micro-compaction done before a request.
#[derive(Debug, Clone, PartialEq)]
pub struct MicroCompaction {
    /// The event to report.
    pub event: LoopEvent,
    /// Tool results cleared.
    pub cleared: usize,
    /// Our usage before it.
    pub tokens_before: u64,
    /// Our usage after it (the plan's saving taken off).
    pub tokens_after: u64,
}

/// One request, prepared: its reminders placed, micro-compaction done.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedRequest {
    /// Reminder items recorded at the tail of the history (persist them).
    pub recorded: Vec<ResponseItem>,
    /// Reminder items only this request's prompt carries (`after_environment_context`).
    pub prompt_only: Vec<ResponseItem>,
    /// Reminder items only this request carries at the end of its prompt (a host that does
    /// not record reminders in the history: the replay of another agent's session).
    pub prompt_tail: Vec<ResponseItem>,
    /// The reminders that fired, in injection order.
    pub fired: Vec<FiredReminder>,
    /// The micro-compaction of this request, when one ran.
    pub micro: Option<MicroCompaction>,
    /// The cost-aware micro-compaction decision of this request, when the tier found a clear
    /// worthwhile and priced it (applied or kept, with why).
    pub micro_cost: Option<crate::decision::MicroCostDecision>,
    /// Our usage of the request (after micro-compaction): the last measure plus the estimate
    /// of what was added since, or the estimate of everything when nothing measured this
    /// history.
    pub usage: ContextUsage,
}

impl PreparedRequest {
    /// How many reminders the request carries.
    pub fn reminders(&self) -> usize {
        self.recorded.len() + self.prompt_only.len() + self.prompt_tail.len()
    }
}

/// What the host puts around the engine's input items in every request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptParts {
    /// The system (base) instructions.
    pub instructions: String,
    /// The tools offered.
    pub tools: Vec<ToolSpec>,
    /// Reasoning settings.
    pub reasoning: Option<ReasoningOptions>,
    /// The session id (the Responses API's `prompt_cache_key`).
    pub session_id: Option<String>,
}

impl PromptParts {
    /// The parts of a host that sends `instructions` and `tools` in session `session_id`, with
    /// no reasoning settings.
    pub fn new(instructions: &str, tools: Vec<ToolSpec>, session_id: &str) -> Self {
        Self {
            instructions: instructions.to_string(),
            tools,
            reasoning: None,
            session_id: Some(session_id.to_string()),
        }
    }
}

/// Which tier compacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionTier {
    /// The first stage of a staged compaction (at the token budget): old tool outputs masked,
    /// each call kept with its marker, the originals persisted; no summary.
    Mask,
    /// The session-memory summary, with no model call.
    SessionMemory,
    /// A stage of a staged compaction: the oldest part of the history summarised by the model,
    /// the recent part kept verbatim.
    PartialModel,
    /// The same, summary written by the offline summariser.
    PartialOffline,
    /// Full compaction, summary written by the model.
    FullModel,
    /// Full compaction, summary written by the offline summariser.
    FullOffline,
    /// Full compaction at the provider (`[compact] mode` `remote` or `auto`): its compacted
    /// history, filtered as codex-rs filters it, each opaque item with a readable copy.
    Remote,
}

/// A compaction the engine installed.
#[derive(Debug, Clone, PartialEq)]
pub struct Compaction {
    /// The new history.
    pub history: Vec<ResponseItem>,
    /// The summary message's text, as the model sees it (prefix included).
    pub summary: String,
    /// Files restored in full, with their content.
    pub restored_files: Vec<(PathBuf, String)>,
    /// Files referenced without being restored.
    pub referenced_files: Vec<PathBuf>,
    /// The tier that compacted.
    pub tier: CompactionTier,
    /// Where in the turn it ran.
    pub point: CompactPoint,
    /// Our estimate of the history before.
    pub tokens_before: u64,
    /// Our estimate of the history after (restoration included).
    pub tokens_after: u64,
    /// Events to report, in order.
    pub events: Vec<LoopEvent>,
    /// The thrash guard's warning, if it raised one.
    pub warning: Option<String>,
    /// Why the full tier compacted here although `[compact] mode` asked for the provider's
    /// compaction (the provider has none, or its call failed); also logged as a warning.
    pub remote_fallback: Option<String>,
    /// The summary request, priced before it was sent, when a summary was written here (the
    /// cost guard's figures included).
    pub summary_estimate: Option<crate::decision::SummaryEstimate>,
}

impl Compaction {
    /// The rollout line that records it (codex's `compacted` line with its replacement
    /// history).
    pub fn compacted_item(&self) -> CompactedItem {
        CompactedItem {
            message: self.summary.clone(),
            replacement_history: Some(self.history.clone()),
            ..CompactedItem::default()
        }
    }
}
