//! Throttling: how often a reminder of each type may fire (see docs/design/reminders.md,
//! "Throttles").
//!
//! State lives in [`ThrottleManager`], one atomic word per attachment type, which the host keeps
//! in an `Arc` across turns (see [`crate::GeneratorContext::throttle`]).

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

use crate::types::AttachmentType;

/// Assistant messages since the last TodoWrite before a todo reminder may fire (Claude Code
/// 2.1's `TODO_REMINDER_CONFIG.TURNS_SINCE_WRITE` in `src/utils/attachments.ts`; the same value
/// drives its `task_reminder`). The todo reminder's clock is
/// [`crate::GeneratorContext::assistant_messages`], not the request count: see
/// docs/design/reminders.md, "Throttles".
pub(crate) const TURNS_SINCE_TODO_WRITE: i32 = 10;
/// Assistant messages between two todo reminders (Claude Code 2.1's
/// `TODO_REMINDER_CONFIG.TURNS_BETWEEN_REMINDERS`).
pub(crate) const TURNS_BETWEEN_TODO_REMINDERS: i32 = 10;
/// Requests within one user turn before an unchanged standing reminder is sent again (the
/// default of `[system_reminder] todo_restate_after_requests`).
pub(crate) const DEFAULT_TODO_RESTATE_AFTER_REQUESTS: i32 = 30;
/// Turns between two plan mode reminders after the first.
pub(crate) const PLAN_MODE_TURNS_BETWEEN: i32 = 5;
/// Every this many plan mode attachments, the full reminder is sent instead of the sparse one.
pub(crate) const FULL_REMINDER_EVERY_N_ATTACHMENTS: i32 = 5;
/// Turns between two task progress updates.
pub(crate) const PROGRESS_TURN_THRESHOLD: i32 = 3;

/// The throttle rule of one attachment type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThrottleConfig {
    /// Minimum turns between two reminders (0: every turn).
    pub min_turns_between: i32,
    /// Minimum turns since the triggering event (e.g. the last TodoWrite).
    pub min_turns_after_trigger: i32,
    /// Maximum reminders per session (`None`: unlimited).
    pub max_per_session: Option<i32>,
}

/// The documented throttle rule for `attachment_type`; unthrottled for types without one.
pub(crate) fn default_throttle_config(attachment_type: AttachmentType) -> ThrottleConfig {
    match attachment_type {
        AttachmentType::TodoReminder => ThrottleConfig {
            min_turns_between: TURNS_BETWEEN_TODO_REMINDERS,
            min_turns_after_trigger: TURNS_SINCE_TODO_WRITE,
            max_per_session: None,
        },
        AttachmentType::PlanMode => ThrottleConfig {
            min_turns_between: PLAN_MODE_TURNS_BETWEEN,
            min_turns_after_trigger: 0,
            max_per_session: None,
        },
        AttachmentType::TaskProgress => ThrottleConfig {
            min_turns_between: PROGRESS_TURN_THRESHOLD,
            min_turns_after_trigger: 0,
            max_per_session: None,
        },
        _ => ThrottleConfig::default(),
    }
}

/// Whether the `attachment_count`-th plan mode attachment (0-based, i.e. the number sent before
/// it) is a full reminder: the first, then every fifth (see docs/design/reminders.md,
/// "Throttles").
pub fn is_full_plan_reminder(attachment_count: i32) -> bool {
    attachment_count.rem_euclid(FULL_REMINDER_EVERY_N_ATTACHMENTS) == 0
}

/// What the throttle remembers about one attachment type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleState {
    /// The last turn a reminder of this type was generated.
    pub last_generated_turn: i32,
    /// How many were generated this session.
    pub session_count: i32,
}

impl ThrottleState {
    /// The state packed in one word: the last turn in the high half, the count in the low one.
    /// A type that never fired has a count of zero, so the word of "never fired" is zero.
    fn pack(self) -> u64 {
        (u64::from(self.last_generated_turn.cast_unsigned()) << 32)
            | u64::from(self.session_count.cast_unsigned())
    }

    /// The state of a word [`ThrottleState::pack`] wrote, `None` for zero (never fired).
    fn unpack(word: u64) -> Option<Self> {
        let session_count = (word as u32).cast_signed();
        (session_count != 0).then_some(Self {
            last_generated_turn: ((word >> 32) as u32).cast_signed(),
            session_count,
        })
    }
}

/// The number of attachment types: one slot each.
const TYPES: usize = AttachmentType::ALL.len();

/// Throttle state of every attachment type, shareable across turns and tasks. Each type's state
/// is one atomic word (the orchestrator asks about every generator before every request, so a
/// check is one load, no hashing and no lock).
#[derive(Debug)]
pub struct ThrottleManager {
    /// The packed [`ThrottleState`] of each type, by its position in [`AttachmentType::ALL`].
    states: [AtomicU64; TYPES],
}

impl Default for ThrottleManager {
    fn default() -> Self {
        Self {
            states: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

impl ThrottleManager {
    /// An empty manager.
    pub fn new() -> Self {
        Self::default()
    }

    /// The slot of `attachment_type` (its declaration order, which is its catalogue order).
    fn slot(&self, attachment_type: AttachmentType) -> Option<&AtomicU64> {
        self.states.get(attachment_type as usize)
    }

    /// Whether a reminder of `attachment_type` may fire on `current_turn` under `config`.
    ///
    /// The first reminder of a type is only held back by the trigger rule; later ones also wait
    /// `min_turns_between` turns and stop at `max_per_session`.
    pub fn should_generate(
        &self,
        attachment_type: AttachmentType,
        config: &ThrottleConfig,
        current_turn: i32,
        trigger_turn: Option<i32>,
    ) -> bool {
        if let Some(trigger) = trigger_turn
            && current_turn.saturating_sub(trigger) < config.min_turns_after_trigger
        {
            return false;
        }
        let Some(state) = self.state(attachment_type) else {
            return config.max_per_session.is_none_or(|max| max > 0);
        };
        if current_turn.saturating_sub(state.last_generated_turn) < config.min_turns_between {
            return false;
        }
        config
            .max_per_session
            .is_none_or(|max| state.session_count < max)
    }

    /// Records that a reminder of `attachment_type` was generated on `current_turn`.
    pub fn mark_generated(&self, attachment_type: AttachmentType, current_turn: i32) {
        let Some(slot) = self.slot(attachment_type) else {
            return;
        };
        let mark = |word| {
            let count = ThrottleState::unpack(word).map_or(0, |state| state.session_count);
            Some(
                ThrottleState {
                    last_generated_turn: current_turn,
                    session_count: count.saturating_add(1),
                }
                .pack(),
            )
        };
        // The closure always answers, so the update cannot fail.
        let _ = slot.fetch_update(Ordering::AcqRel, Ordering::Acquire, mark);
    }

    /// The state of `attachment_type`, `None` if it never fired.
    pub fn state(&self, attachment_type: AttachmentType) -> Option<ThrottleState> {
        ThrottleState::unpack(self.slot(attachment_type)?.load(Ordering::Acquire))
    }

    /// How many reminders of `attachment_type` were generated this session.
    pub fn session_count(&self, attachment_type: AttachmentType) -> i32 {
        self.state(attachment_type)
            .map_or(0, |state| state.session_count)
    }

    /// The last turn `attachment_type` fired on.
    pub fn last_generated_turn(&self, attachment_type: AttachmentType) -> Option<i32> {
        self.state(attachment_type)
            .map(|state| state.last_generated_turn)
    }

    /// Forgets everything (session start, or after compaction).
    pub fn reset(&self) {
        for slot in &self.states {
            slot.store(0, Ordering::Release);
        }
    }
}

#[cfg(test)]
#[path = "throttle_tests.rs"]
mod tests;
