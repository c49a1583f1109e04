//! What may be resumed when a stream breaks, and what may not.
//!
//! A request sent again is a new sample: with `store: false` (Responses), or on Chat
//! Completions and Anthropic Messages, the server has nothing to resume from, so the second
//! answer has new ids, other items and other text. Events cannot be matched up by position or
//! by id across attempts, and splicing the tail of one answer onto the head of another corrupts
//! the history (two tool calls, a lost message, "Hello wor" + "Hi there").
//!
//! [`AttemptState`] therefore passes events through untouched and only records what the
//! consumer has been given, so the driver can decide what a break means:
//!
//! - no item completed yet: the driver sends the request again and the consumer is told, by
//!   [`ResponseEvent::AttemptAbandoned`], to discard the partial output it was shown;
//! - an item completed: the consumer may already have recorded it or even run a tool call, so
//!   the stream ends with [`crate::ModelError::TurnRestartRequired`] and the caller redoes the
//!   turn whole, as codex-rs does (its `run_turn` sends the same prompt again after a stream
//!   error instead of resuming one).
//!
//! See docs/design/model-streaming.md, "Resume".

use agentctx_protocol::TokenUsage;

use crate::response_event::ResponseEvent;

/// What the consumer has received of one response, over all its attempts.
#[derive(Debug, Default)]
pub(crate) struct AttemptState {
    created_delivered: bool,
    completed_delivered: bool,
    /// Items completed (delivered as `OutputItemDone`) by the current attempt.
    items_completed: usize,
    /// Usage the provider reported for the current attempt before it broke.
    usage: Option<TokenUsage>,
}

impl AttemptState {
    /// Starts the next attempt (the first one included). Only an attempt without completed
    /// items is ever followed by another, so nothing else carries over.
    pub(crate) fn new_attempt(&mut self) {
        self.items_completed = 0;
        self.usage = None;
    }

    /// True once `Completed` was delivered.
    pub(crate) fn completed(&self) -> bool {
        self.completed_delivered
    }

    /// Items the current attempt completed.
    pub(crate) fn items_completed(&self) -> usize {
        self.items_completed
    }

    /// Records the usage the provider reported so far for the current attempt.
    pub(crate) fn record_usage(&mut self, usage: Option<TokenUsage>) {
        self.usage = usage;
    }

    /// The usage the current attempt reported before it broke.
    pub(crate) fn usage(&self) -> Option<TokenUsage> {
        self.usage
    }

    /// The event to deliver for `event`: every event of an attempt passes, except a second
    /// `Created` (the consumer learns of the new attempt from `AttemptAbandoned`).
    pub(crate) fn admit(&mut self, event: ResponseEvent) -> Option<ResponseEvent> {
        match event {
            ResponseEvent::Created => {
                let first = !self.created_delivered;
                self.created_delivered = true;
                first.then_some(ResponseEvent::Created)
            }
            ResponseEvent::OutputItemDone(item) => {
                self.items_completed += 1;
                Some(ResponseEvent::OutputItemDone(item))
            }
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
            event @ (ResponseEvent::OutputItemAdded(_)
            | ResponseEvent::OutputTextDelta(_)
            | ResponseEvent::ReasoningSummaryDelta(_)
            | ResponseEvent::ReasoningContentDelta(_)
            | ResponseEvent::RateLimits(_)
            | ResponseEvent::PromptCache { .. }
            | ResponseEvent::OutputTruncated { .. }
            | ResponseEvent::AttemptAbandoned { .. }) => Some(event),
        }
    }
}

#[cfg(test)]
#[path = "stream_resume_tests.rs"]
mod tests;
