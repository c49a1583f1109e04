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
//! It also holds back what would make an empty answer look like a real one: an assistant
//! message with no text is not delivered until something with content follows, and the
//! `Completed` of an attempt that produced nothing (no text, no tool call, no reasoning) is not
//! delivered at all; the driver then asks once more (see [`AttemptState::answered_nothing`]).
//!
//! See docs/design/model-streaming.md, "Resume".

use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;

use crate::response_event::ResponseEvent;

/// What the consumer has received of one response, over all its attempts.
#[derive(Debug, Default)]
pub(crate) struct AttemptState {
    created_delivered: bool,
    completed_delivered: bool,
    /// Items completed (delivered as `OutputItemDone`) by the current attempt.
    items_completed: usize,
    /// Usage the provider reported for the current attempt before it broke, or with the
    /// `Completed` of an answer that was empty.
    usage: Option<TokenUsage>,
    /// Events the current attempt produced (before any was held back or dropped): how far it
    /// got, to tell a stream that breaks the same way every time from random drops.
    events: usize,
    /// True once the current attempt produced something of an answer: an item with content,
    /// text, or a truncation notice.
    answered: bool,
    /// Empty assistant messages the current attempt completed, held back until it answers.
    held: Vec<ResponseEvent>,
    /// True when the current attempt completed without answering anything; its `Completed`
    /// was not delivered.
    completed_empty: bool,
}

impl AttemptState {
    /// Starts the next attempt (the first one included). Only an attempt without completed
    /// items is ever followed by another, so nothing else carries over.
    pub(crate) fn new_attempt(&mut self) {
        self.items_completed = 0;
        self.usage = None;
        self.events = 0;
        self.answered = false;
        self.held.clear();
        self.completed_empty = false;
    }

    /// True once the response completed: `Completed` was delivered, or held back because the
    /// answer was empty.
    pub(crate) fn completed(&self) -> bool {
        self.completed_delivered || self.completed_empty
    }

    /// True when the current attempt completed with nothing in it: no text, no tool call, no
    /// reasoning (the LiteLLM proxy turns a failed upstream stream into such an answer). Its
    /// `Completed` and empty messages were held back, so the attempt can be abandoned like a
    /// dropped one; [`AttemptState::usage`] is the usage it reported.
    pub(crate) fn answered_nothing(&self) -> bool {
        self.completed_empty
    }

    /// Events the current attempt produced.
    pub(crate) fn events(&self) -> usize {
        self.events
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

    /// Pushes to `out` what to deliver for `event`: every event of an attempt passes, in
    /// order, except a second `Created` (the consumer learns of the new attempt from
    /// `AttemptAbandoned`) and what an empty answer is held back by (an assistant message
    /// without text, until the attempt answers; the `Completed` of an attempt that did not).
    pub(crate) fn admit(&mut self, event: ResponseEvent, out: &mut Vec<ResponseEvent>) {
        self.events += 1;
        match event {
            ResponseEvent::Created => {
                if !self.created_delivered {
                    self.created_delivered = true;
                    out.push(ResponseEvent::Created);
                }
            }
            ResponseEvent::OutputItemDone(item) if !self.answered && is_empty_message(&item) => {
                self.held.push(ResponseEvent::OutputItemDone(item));
            }
            ResponseEvent::OutputItemDone(item) => {
                self.answer(out);
                self.items_completed += 1;
                out.push(ResponseEvent::OutputItemDone(item));
            }
            ResponseEvent::Completed {
                response_id,
                token_usage,
            } => {
                if self.completed_delivered || self.completed_empty {
                    return;
                }
                if !self.answered {
                    self.completed_empty = true;
                    self.usage = token_usage;
                    return;
                }
                self.completed_delivered = true;
                out.push(ResponseEvent::Completed {
                    response_id,
                    token_usage,
                });
            }
            ResponseEvent::OutputTextDelta(piece) => {
                if !piece.trim().is_empty() {
                    self.answer(out);
                }
                out.push(ResponseEvent::OutputTextDelta(piece));
            }
            ResponseEvent::OutputTruncated { reason } => {
                self.answer(out);
                out.push(ResponseEvent::OutputTruncated { reason });
            }
            event @ (ResponseEvent::OutputItemAdded(_)
            | ResponseEvent::ReasoningSummaryDelta(_)
            | ResponseEvent::ReasoningContentDelta(_)
            | ResponseEvent::RateLimits(_)
            | ResponseEvent::PromptCache { .. }
            | ResponseEvent::ProviderContext(_)
            | ResponseEvent::AttemptAbandoned { .. }) => out.push(event),
        }
    }

    /// The attempt answered something: the empty messages held back so far are delivered,
    /// in their place, before what answered.
    fn answer(&mut self, out: &mut Vec<ResponseEvent>) {
        if self.answered {
            return;
        }
        self.answered = true;
        self.items_completed += self.held.len();
        out.append(&mut self.held);
    }
}

/// True for an assistant message with no text (no parts, or only blank text parts).
fn is_empty_message(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::Message { role, content, .. } => {
            role == "assistant"
                && content
                    .iter()
                    .all(|part| part.as_text().is_some_and(|text| text.trim().is_empty()))
        }
        _ => false,
    }
}

#[cfg(test)]
#[path = "stream_resume_tests.rs"]
mod tests;
