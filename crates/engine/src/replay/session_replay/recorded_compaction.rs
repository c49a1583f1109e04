//! A compaction the session recorded: the decision due where it stands, its history installed in
//! the engine, what the report shows of it; and the replay stopped before one.

use agentctx_protocol::CompactedItem;
use agentctx_protocol::ResponseItem;
use agentctx_rollout::CLAUDE_CODE_ORIGINATOR;

use super::SessionReplayBuilder;
use super::first_chars;
use crate::decision::CompactionFigures;
use crate::recorded_session::rebuild_without_replacement;
use crate::replay::recorded_billing::UnreplayedUsage;
use crate::replay::replay_report::COMPACTION_KEPT_ITEMS;
use crate::replay::replay_report::COMPACTION_SUMMARY_CHARS;
use crate::replay::replay_report::RecordedCompaction;
use crate::replay::request_usage::TierTrigger;

impl SessionReplayBuilder<'_> {
    /// A recorded compaction: the decision due where it stands is taken first, on the history
    /// as the live session had it when it decided; then the recorded history is installed. When
    /// the engine asked for a compaction there, the recorded one is the compaction it asked for
    /// (a session agentctx recorded under the same configuration compacted exactly there) and
    /// the decision carries its figures.
    pub(super) fn compacted(&mut self, compacted: &CompactedItem) {
        if self.stop_before_compaction == Some(self.compactions + 1) {
            self.stop_here();
            return;
        }
        let decision = self.due_decision_at_compaction();
        self.recorded_compactions.push(recorded_compaction(
            compacted,
            self.current.as_ref().map(|turn| turn.turn),
            self.requests.len(),
        ));
        let clock = i32::try_from(self.requests.len()).unwrap_or(i32::MAX);
        self.observe_reads();
        let history = match &compacted.replacement_history {
            Some(items) => items.clone(),
            None => rebuild_without_replacement(self.engine().history(), &compacted.message),
        };
        if let Some(survival) = &mut self.survival {
            survival.recorded_compaction(
                &history,
                self.current.as_ref().map(|turn| turn.turn),
                self.requests.len(),
                self.cwd.as_deref().unwrap_or(std::path::Path::new("")),
            );
        }
        let engine = self.engine();
        let before = engine.context_usage().used_tokens();
        engine.install_recorded_compaction(history, clock);
        let after = engine.context_usage().used_tokens();
        if let Some(mut decision) = decision {
            if decision.compact_reason().is_some() {
                decision.compaction = Some(CompactionFigures {
                    tier: recorded_tier(compacted),
                    tokens_before: before,
                    tokens_after: after,
                    summary: None,
                });
                self.due_auto_compact = Some(TierTrigger {
                    tokens_before: before,
                    tokens_after: after,
                });
            }
            self.due_decisions.push(decision);
        }
        // Both histories are the recorded one again.
        self.recorded_offset = 0;
        self.request_open = false;
        // A measure waiting for its request measured one before the rewrite (codex's
        // summarisation request, whose output is the compaction itself): billed apart.
        let pending = self.pending_measure.take();
        self.unreplayed_usage
            .extend(UnreplayedUsage::of_pending(pending));
        self.segmenter.history_rewritten();
        self.compacted_since_request = true;
        self.compactions += 1;
        if let Some(turn) = &mut self.current {
            turn.compactions += 1;
        }
    }

    /// Tells the engine what the session read and wrote since the last compaction (its tools
    /// told the live engine as they ran): restoration and the read ledger after a compaction see
    /// what the live ones saw. Walked once per compaction, before the history is replaced.
    pub(super) fn observe_reads(&mut self) {
        if let (Some(cwd), Some(engine)) = (&self.cwd, &self.engine) {
            engine.observe_recorded_reads(cwd, engine.history());
        }
    }

    /// Stops the replay where the session recorded a compaction, before it is installed: the
    /// engine as it stands, with the decision due there (`agentctx compact --at-compaction`).
    pub(super) fn stop_here(&mut self) {
        let decision = self.due_decision_at_compaction();
        let clock = i32::try_from(self.requests.len()).unwrap_or(i32::MAX);
        let todo_tool = self.originator.as_deref() == Some(CLAUDE_CODE_ORIGINATOR);
        let host = self
            .engine()
            .reminders()
            .recorded_host_state(clock, todo_tool);
        self.observe_reads();
        let Some(engine) = self.engine.take() else {
            return;
        };
        self.stopped = Some(Box::new(super::at_compaction::EngineAtCompaction {
            engine,
            decision,
            instructions: self.instructions.clone(),
            host,
            clock,
            requests: self.requests.len(),
        }));
    }
}

/// The tier of a recorded compaction: the provider's when its history holds a compaction item,
/// else a full compaction (its summary written by a model).
fn recorded_tier(compacted: &CompactedItem) -> crate::context_engine::CompactionTier {
    let remote = compacted
        .replacement_history
        .iter()
        .flatten()
        .any(|item| item.readable_copy().is_some());
    if remote {
        crate::context_engine::CompactionTier::Remote
    } else {
        crate::context_engine::CompactionTier::FullModel
    }
}

/// What the report of a recorded compaction shows: its summary, and the replacement history's
/// other items one line each.
fn recorded_compaction(
    compacted: &CompactedItem,
    turn: Option<usize>,
    after_request: usize,
) -> RecordedCompaction {
    let summary = compacted.message.trim();
    let kept = compacted
        .replacement_history
        .iter()
        .flatten()
        .filter(|item| {
            item.message_text()
                .is_none_or(|text| summary.is_empty() || !text.contains(summary))
        })
        .take(COMPACTION_KEPT_ITEMS)
        .map(describe_item)
        .collect();
    RecordedCompaction {
        turn,
        after_request,
        summary: first_chars(summary, COMPACTION_SUMMARY_CHARS).0.to_string(),
        kept,
        replacement_items: compacted.replacement_history.as_ref().map(Vec::len),
    }
}

/// Characters of a kept item's text its line shows.
const KEPT_ITEM_CHARS: usize = 100;

/// `role: start of its text` for a message, `compaction: start of its readable copy` for a
/// provider's compaction item that has one, else the item's type.
fn describe_item(item: &ResponseItem) -> String {
    let (label, text) = match (item.message_text(), item.readable_copy()) {
        (Some(text), _) => (item.role().unwrap_or("message"), text),
        (None, Some(copy)) => (item.type_name(), copy.to_string()),
        (None, None) => return item.type_name().to_string(),
    };
    // The words joined by single spaces, cut to the kept length: joined only as far as kept.
    let mut line = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        if chars >= KEPT_ITEM_CHARS {
            break;
        }
        if !line.is_empty() {
            line.push(' ');
            chars += 1;
        }
        line.push_str(word);
        chars += word.chars().count();
    }
    format!("{label}: {}", first_chars(&line, KEPT_ITEM_CHARS).0)
}

#[cfg(test)]
#[path = "recorded_compaction_tests.rs"]
mod tests;
