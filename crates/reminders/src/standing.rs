//! [`StandingReminders`]: the within-turn rule of standing reminders (see
//! docs/design/reminders.md, "Standing reminders").
//!
//! A standing reminder restates state the model already has ([`AttachmentType::is_standing`]).
//! Under tail placement the copy it was last sent stays in the history, so sending the same
//! text again in the same user turn only adds noise: the orchestrator holds it back until the
//! text changes, a new user turn begins, a compaction removes the earlier copy
//! ([`StandingReminders::forget`]) or [`GeneratorContext::todo_restate_after_requests`] requests
//! went by (a long turn where the copy has drifted far up). Event reminders never pass through
//! here.

use std::hash::DefaultHasher;
use std::hash::Hash;
use std::hash::Hasher;
use std::sync::Mutex;
use std::sync::PoisonError;

use crate::config::ReminderPlacement;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// What the model was last sent of one standing type: a hash of the text, with the user turn and
/// the request it went out with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shown {
    content: u64,
    user_turn: i32,
    request: i32,
}

/// The number of attachment types: one slot each.
const TYPES: usize = AttachmentType::ALL.len();

/// What each standing type last told the model, shared by the requests of a session.
#[derive(Debug)]
pub(crate) struct StandingReminders {
    /// By the type's position in [`AttachmentType::ALL`].
    shown: Mutex<[Option<Shown>; TYPES]>,
}

impl Default for StandingReminders {
    fn default() -> Self {
        Self {
            shown: Mutex::new([None; TYPES]),
        }
    }
}

impl StandingReminders {
    /// Whether `reminder` goes out on the request of `ctx`; when it does and is standing, it is
    /// remembered as what the model last saw of its type.
    ///
    /// Event reminders always go out, and so does everything under
    /// [`ReminderPlacement::AfterEnvironmentContext`], where each prompt is rebuilt and the
    /// earlier copy is no longer in front of the model.
    pub(crate) fn admit(&self, reminder: &SystemReminder, ctx: &GeneratorContext) -> bool {
        let attachment_type = reminder.attachment_type;
        if !attachment_type.is_standing() || ctx.placement != ReminderPlacement::Tail {
            return true;
        }
        let current = Shown {
            content: content_hash(&reminder.content),
            user_turn: ctx.user_turns,
            request: ctx.turn_number,
        };
        let mut shown = self.shown.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(slot) = shown.get_mut(attachment_type as usize) else {
            return true;
        };
        let repeats = slot.is_some_and(|last| {
            last.content == current.content
                && last.user_turn == current.user_turn
                && current.request.saturating_sub(last.request) < ctx.todo_restate_after_requests
        });
        if !repeats {
            *slot = Some(current);
        }
        !repeats
    }

    /// Forgets what every type told the model: after a compaction the earlier copies are gone.
    pub(crate) fn forget(&self) {
        *self.shown.lock().unwrap_or_else(PoisonError::into_inner) = [None; TYPES];
    }
}

/// A hash of a reminder's text: 64 bits tell two texts of one type apart for all practical
/// purposes, and the memory stays a few words per type however long the text.
fn content_hash(content: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    content.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
#[path = "standing_tests.rs"]
mod tests;
