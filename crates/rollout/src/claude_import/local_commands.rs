//! Slash commands Claude Code answered itself, told apart from those that prompted the model.
//!
//! A slash command is recorded as a `user` message (`<command-name>/model</command-name>`, ...).
//! It is a user turn only when a model request follows it (a custom command or a skill sends a
//! prompt); when no model output of the same thread comes before the next prompt the user
//! typed, the client answered it (`/model`, `/mcp`, `/compact`), and it is marked injected
//! (see docs/design/rollout-formats.md, "Injected records are not user turns").
//!
//! [`LocalCommands`] decides this on the stream of kept events: events pass through at once,
//! except that from an undecided command on, they wait until it is decided — by a model
//! output or a typed prompt of its thread, or the end of the file. That is the only lookahead
//! of the streaming import, and it holds the events between a command and what follows it.

use std::collections::VecDeque;

use agentctx_protocol::CLAUDE_CODE_COMMAND_NAME_OPEN_TAG;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::is_model_generated;

use super::lazy_item::LazyClaudeItem;

use crate::record::LazyReadEvent;
use crate::record::LazyRecord;

/// The kept events, in order, with the commands not yet decided.
#[derive(Debug, Default)]
pub(super) struct LocalCommands {
    /// Events not yet passed on; the first undecided command is among them.
    queue: VecDeque<LazyReadEvent>,
    /// Events passed on so far (the queue's first event has this number).
    passed: usize,
    /// Undecided commands: the event's number and its thread (sidechain or not).
    undecided: Vec<(usize, bool)>,
}

impl LocalCommands {
    /// Takes the next kept event.
    pub(super) fn push(&mut self, event: LazyReadEvent) {
        if let LazyReadEvent::Record(record) = &event
            && !self.undecided.is_empty()
            && let Some(item) = ItemView::of(record)
        {
            let sidechain = record.flags.sidechain;
            // A tool call or result kept untyped is a `function_call` or a
            // `function_call_output`, a usage kept untyped a `token_count` event: never a user
            // message.
            let (answered, typed_prompt) = match item {
                ItemView::Typed(item) => {
                    let answered = is_model_generated(item);
                    (answered, !answered && is_typed_prompt(record, item))
                }
                ItemView::Untyped(item) => (item.is_model_output(), false),
            };
            if answered || typed_prompt {
                let (decided, undecided): (Vec<_>, Vec<_>) = self
                    .undecided
                    .drain(..)
                    .partition(|(_, thread)| *thread == sidechain);
                self.undecided = undecided;
                if typed_prompt {
                    for (number, _) in decided {
                        self.mark_injected(number);
                    }
                }
            }
        }
        let number = self.passed + self.queue.len();
        if let LazyReadEvent::Record(record) = &event
            && is_command(record)
        {
            self.undecided.push((number, record.flags.sidechain));
        }
        self.queue.push_back(event);
    }

    /// Passes on the events before the first undecided command.
    pub(super) fn drain_ready(&mut self, out: &mut VecDeque<LazyReadEvent>) {
        let first_undecided = self
            .undecided
            .iter()
            .map(|(number, _)| *number)
            .min()
            .unwrap_or(usize::MAX);
        while self.passed < first_undecided {
            let Some(event) = self.queue.pop_front() else {
                break;
            };
            self.passed += 1;
            out.push_back(event);
        }
    }

    /// The end of the file: a command still undecided was answered locally.
    pub(super) fn finish(&mut self, out: &mut VecDeque<LazyReadEvent>) {
        for (number, _) in std::mem::take(&mut self.undecided) {
            self.mark_injected(number);
        }
        self.drain_ready(out);
    }

    fn mark_injected(&mut self, number: usize) {
        let Some(LazyReadEvent::Record(command)) = number
            .checked_sub(self.passed)
            .and_then(|index| self.queue.get_mut(index))
        else {
            return;
        };
        command.flags.injected = true;
        if let Some(line) = command.typed_line_mut()
            && let RolloutItem::ResponseItem(item) = &mut line.item
        {
            item.set_injected(true);
        }
    }
}

/// A user message that is a slash command and not already harness text.
fn is_command(record: &LazyRecord) -> bool {
    typed_response_item(record).is_some_and(|item| {
        item.role() == Some("user")
            && !record.flags.injected
            && item
                .message_text()
                .is_some_and(|text| is_command_text(&text))
    })
}

/// A prompt the user typed: a user message, not harness text, not a slash command.
fn is_typed_prompt(record: &LazyRecord, item: &ResponseItem) -> bool {
    item.role() == Some("user")
        && !record.flags.injected
        && !item
            .message_text()
            .is_some_and(|text| is_command_text(&text))
}

/// A slash command record: `<command-name>/x</command-name>` with its message and arguments,
/// in either order.
fn is_command_text(text: &str) -> bool {
    let text = text.trim_start();
    (text.starts_with(CLAUDE_CODE_COMMAND_NAME_OPEN_TAG) || text.starts_with("<command-message>"))
        && text.contains(CLAUDE_CODE_COMMAND_NAME_OPEN_TAG)
}

/// The response item of a record, typed or kept untyped.
enum ItemView<'a> {
    Typed(&'a ResponseItem),
    Untyped(&'a LazyClaudeItem),
}

impl<'a> ItemView<'a> {
    fn of(record: &'a LazyRecord) -> Option<Self> {
        match record.claude_item() {
            Some(item) => Some(Self::Untyped(item)),
            None => typed_response_item(record).map(Self::Typed),
        }
    }
}

fn typed_response_item(record: &LazyRecord) -> Option<&ResponseItem> {
    match &record.typed_line()?.item {
        RolloutItem::ResponseItem(item) => Some(item),
        RolloutItem::SessionMeta(_)
        | RolloutItem::Compacted(_)
        | RolloutItem::TurnContext(_)
        | RolloutItem::EventMsg(_)
        | RolloutItem::Unknown { .. } => None,
    }
}
