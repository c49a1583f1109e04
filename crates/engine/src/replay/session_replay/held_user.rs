//! The user messages of the main thread whose turn is not decided yet, and how they are
//! decided: confirmed by a `user_message` event, joining the turn one started, or judged by
//! their text and flags.

use agentctx_protocol::ResponseItem;
use agentctx_rollout::RolloutRecord;

use super::ItemTurn;
use super::SessionReplayBuilder;
use super::is_turn_start;
use crate::error::ReplayError;

impl SessionReplayBuilder<'_> {
    /// Decides the held user messages: the newest whose text is `event_text` is the input of
    /// a `user_message` event, and starts its turn (returns true); the others are unconfirmed.
    pub(super) fn release_held(&mut self, event_text: Option<&str>) -> Result<bool, ReplayError> {
        let held = std::mem::take(&mut self.held_user);
        let confirmed =
            event_text.and_then(|text| held.iter().rposition(|record| same_text(record, text)));
        for (index, record) in held.into_iter().enumerate() {
            if Some(index) == confirmed {
                self.item_with_turn(record, ItemTurn::Starts)?;
            } else {
                self.release_unconfirmed(record)?;
            }
        }
        Ok(confirmed.is_some())
    }

    /// A held user message no `user_message` event confirmed: the input of a turn an event
    /// already started, harness context when the session marks its turns with events, else
    /// decided by its text and flags.
    fn release_unconfirmed(&mut self, held: RolloutRecord) -> Result<(), ReplayError> {
        let joins = self
            .event_turn
            .as_deref()
            .is_some_and(|text| same_text(&held, text));
        let turn = if joins {
            self.event_turn = None;
            ItemTurn::Joins
        } else if self.user_events_seen {
            ItemTurn::Within
        } else if held
            .response_item()
            .is_some_and(|item| is_turn_start(item, held.flags))
        {
            ItemTurn::Starts
        } else {
            ItemTurn::Within
        };
        self.item_with_turn(held, turn)
    }
}

/// True when the text of the user message `record` holds is `text` (surrounding whitespace
/// aside): a `user_message` event and the item of the same input.
fn same_text(record: &RolloutRecord, text: &str) -> bool {
    record
        .response_item()
        .and_then(ResponseItem::message_text)
        .is_some_and(|item_text| item_text.trim() == text.trim())
}
