//! Resuming a dropped stream without duplicating what the consumer already received.
//!
//! When a stream breaks mid-way the request is sent again and the new response replays from the
//! start. [`ResumeFilter`] sits between the parser and the consumer: it counts the
//! `OutputItemAdded` / `OutputItemDone` events the consumer has seen, skips the same number at
//! the start of every later attempt (and any item whose id was already delivered), and for the
//! item that was in progress it skips the replayed text deltas up to what was delivered,
//! passing on only the new remainder.

use std::collections::HashSet;

use agentctx_protocol::ResponseItem;

use crate::response_event::ResponseEvent;

/// Text of the in-progress item delivered so far, and this attempt's replay of it.
#[derive(Debug, Default)]
struct DeltaTrack {
    delivered: String,
    replayed: String,
    caught_up: bool,
}

impl DeltaTrack {
    /// Returns the part of `piece` the consumer has not seen yet.
    fn admit(&mut self, piece: &str) -> Option<String> {
        if self.caught_up {
            self.delivered.push_str(piece);
            return Some(piece.to_string());
        }
        self.replayed.push_str(piece);
        if self.delivered.starts_with(&self.replayed) {
            if self.delivered.len() == self.replayed.len() {
                self.caught_up = true;
                self.replayed.clear();
            }
            return None;
        }
        let fresh = if self.replayed.starts_with(&self.delivered) {
            self.replayed
                .get(self.delivered.len()..)
                .unwrap_or(piece)
                .to_string()
        } else {
            tracing::warn!(
                "replayed stream diverged from the delivered text; passing the delta on"
            );
            piece.to_string()
        };
        self.delivered.push_str(&fresh);
        self.caught_up = true;
        self.replayed.clear();
        Some(fresh)
    }

    fn new_attempt(&mut self) {
        self.replayed.clear();
        self.caught_up = self.delivered.is_empty();
    }
}

/// Filters the events of successive attempts of one response.
#[derive(Debug, Default)]
pub(crate) struct ResumeFilter {
    created_delivered: bool,
    completed_delivered: bool,
    added_delivered: usize,
    done_delivered: usize,
    delivered_ids: HashSet<String>,
    attempt_added: usize,
    attempt_done: usize,
    text: DeltaTrack,
    summary: DeltaTrack,
    content: DeltaTrack,
}

fn item_id(item: &ResponseItem) -> Option<&str> {
    match item {
        ResponseItem::Message { id, .. }
        | ResponseItem::Reasoning { id, .. }
        | ResponseItem::LocalShellCall { id, .. }
        | ResponseItem::FunctionCall { id, .. }
        | ResponseItem::CustomToolCall { id, .. }
        | ResponseItem::WebSearchCall { id, .. } => id.as_deref(),
        ResponseItem::FunctionCallOutput { .. }
        | ResponseItem::CustomToolCallOutput { .. }
        | ResponseItem::GhostSnapshot { .. }
        | ResponseItem::Compaction { .. }
        | ResponseItem::Other(_) => None,
    }
}

impl ResumeFilter {
    /// Starts the next attempt (the first one included).
    pub(crate) fn new_attempt(&mut self) {
        self.attempt_added = 0;
        self.attempt_done = 0;
        self.text.new_attempt();
        self.summary.new_attempt();
        self.content.new_attempt();
    }

    /// True once `Completed` was delivered.
    pub(crate) fn completed(&self) -> bool {
        self.completed_delivered
    }

    /// The event to deliver for `event`, `None` when the consumer already has it.
    pub(crate) fn admit(&mut self, event: ResponseEvent) -> Option<ResponseEvent> {
        // Deltas of items already completed in an earlier attempt are replays.
        let replaying_done_items = self.attempt_done < self.done_delivered;
        match event {
            ResponseEvent::Created => {
                let first = !self.created_delivered;
                self.created_delivered = true;
                first.then_some(ResponseEvent::Created)
            }
            ResponseEvent::RateLimits(snapshot) => Some(ResponseEvent::RateLimits(snapshot)),
            ResponseEvent::OutputItemAdded(item) => {
                let ordinal = self.attempt_added;
                self.attempt_added += 1;
                if ordinal < self.added_delivered {
                    return None;
                }
                self.added_delivered += 1;
                Some(ResponseEvent::OutputItemAdded(item))
            }
            ResponseEvent::OutputItemDone(item) => {
                let ordinal = self.attempt_done;
                self.attempt_done += 1;
                if ordinal < self.done_delivered {
                    return None;
                }
                if let Some(id) = item_id(&item)
                    && !self.delivered_ids.insert(id.to_string())
                {
                    return None;
                }
                self.done_delivered += 1;
                // Keep `Added` ordinals aligned when an item arrives without one.
                self.added_delivered = self.added_delivered.max(self.done_delivered);
                self.attempt_added = self.attempt_added.max(self.attempt_done);
                self.text = DeltaTrack::default();
                self.summary = DeltaTrack::default();
                self.content = DeltaTrack::default();
                self.text.caught_up = true;
                self.summary.caught_up = true;
                self.content.caught_up = true;
                Some(ResponseEvent::OutputItemDone(item))
            }
            ResponseEvent::OutputTextDelta(piece) => (!replaying_done_items)
                .then(|| self.text.admit(&piece))
                .flatten()
                .map(ResponseEvent::OutputTextDelta),
            ResponseEvent::ReasoningSummaryDelta(piece) => (!replaying_done_items)
                .then(|| self.summary.admit(&piece))
                .flatten()
                .map(ResponseEvent::ReasoningSummaryDelta),
            ResponseEvent::ReasoningContentDelta(piece) => (!replaying_done_items)
                .then(|| self.content.admit(&piece))
                .flatten()
                .map(ResponseEvent::ReasoningContentDelta),
            ResponseEvent::Completed {
                response_id,
                token_usage,
            } => {
                let first = !self.completed_delivered;
                self.completed_delivered = true;
                first.then_some(ResponseEvent::Completed {
                    response_id,
                    token_usage,
                })
            }
        }
    }
}

#[cfg(test)]
#[path = "stream_resume_tests.rs"]
mod tests;
