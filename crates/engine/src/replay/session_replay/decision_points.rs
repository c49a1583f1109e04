//! Where a replayed session stands between two model requests ([`Between`]), and the engine's
//! decisions taken there: before a turn, after tool outputs, at a recorded compaction; a
//! compaction one asks for is carried out.

use agentctx_protocol::ResponseItem;
use agentctx_reminders::is_reminder_item;

use super::SessionReplayBuilder;
use crate::decision::Action;
use crate::decision::CompactReason;
use crate::decision::Decision;
use crate::decision::DecisionPoint;

impl SessionReplayBuilder<'_> {
    /// The decision due where a recorded compaction stands: before a turn (after a response
    /// that asked for no tools), after tool outputs, or, once those were taken, the request's
    /// own check against the blocking limit (a live session records its reminders, then
    /// compacts when the request is blocked, or when the provider refused it as too long).
    pub(super) fn due_decision_at_compaction(&mut self) -> Option<Decision> {
        let between = std::mem::replace(&mut self.between, Between::Ready);
        match between {
            // Taken here: the turn that starts next is not checked again (`Ready`).
            Between::Response { tool_calls: false } | Between::TurnEnd { decided: None } => Some(
                self.engine()
                    .threshold_decision(DecisionPoint::BeforeTurn, CompactReason::PreTurn),
            ),
            Between::TurnEnd {
                decided: Some(decision),
            } => Some(decision),
            Between::Response { tool_calls: true } | Between::ToolOutputs => Some(
                self.engine()
                    .threshold_decision(DecisionPoint::AfterToolOutputs, CompactReason::MidTurn),
            ),
            Between::Ready => {
                let overhead = self.overhead_tokens();
                let mut decision = self.engine().decide_request(None, overhead);
                if decision.action == Action::Send {
                    // Not blocked: the live session compacted because the provider refused the
                    // request as too long.
                    decision.point = DecisionPoint::AfterFailure;
                    decision.action = Action::Compact {
                        reason: CompactReason::Overflow,
                    };
                }
                Some(decision)
            }
        }
    }

    /// A model-generated item of the open request: a tool call makes the tool outputs that
    /// follow end in the mid-turn check.
    pub(super) fn observe_model_item(&mut self, item: &ResponseItem) {
        if let Between::Response { tool_calls } = &mut self.between
            && item.is_tool_call()
        {
            *tool_calls = true;
        }
    }

    /// An item the model did not generate (a tool output, a reminder, a user message, the
    /// context of a turn), before it enters the engine: the end of a response that asked for
    /// no tools takes the pre-turn decision now (nothing but the next turn's items follows), and
    /// a reminder after tool outputs the mid-turn one (the live session records the next
    /// request's reminders after it).
    pub(super) fn observe_other_item(&mut self, item: &ResponseItem) {
        match self.between {
            Between::Response { tool_calls: true } => self.between = Between::ToolOutputs,
            Between::Response { tool_calls: false } => self.take_turn_decision(),
            Between::ToolOutputs if is_reminder_item(item) => self.take_mid_turn_decision(),
            Between::ToolOutputs | Between::TurnEnd { .. } | Between::Ready => {}
        }
    }

    /// A `turn_context` line: a new turn's settings (codex records them before the turn's
    /// items).
    pub(super) fn observe_turn_settings(&mut self) {
        if matches!(self.between, Between::Response { tool_calls: false }) {
            self.take_turn_decision();
        }
    }

    /// The pre-turn decision, taken on the history as it stands; carried out when the turn
    /// starts.
    pub(super) fn take_turn_decision(&mut self) {
        let decision = self
            .engine()
            .threshold_decision(DecisionPoint::BeforeTurn, CompactReason::PreTurn);
        self.between = Between::TurnEnd {
            decided: Some(decision),
        };
    }

    /// The mid-turn decision after tool outputs, carried out now.
    pub(super) fn take_mid_turn_decision(&mut self) {
        let decision = self
            .engine()
            .threshold_decision(DecisionPoint::AfterToolOutputs, CompactReason::MidTurn);
        self.between = Between::Ready;
        self.carry_out(decision);
    }

    /// A turn starts: the pre-turn decision due is carried out.
    pub(super) fn turn_starts(&mut self) {
        let decision = match std::mem::replace(&mut self.between, Between::Ready) {
            Between::TurnEnd {
                decided: Some(decision),
            } => decision,
            // A turn that follows tool outputs (the previous one was cut off) or a response
            // whose end was not seen yet is checked as it stands.
            // The session's first turn: the live engine checked an empty history and kept no
            // decision.
            Between::TurnEnd { decided: None }
                if self.requests.is_empty() && self.compactions == 0 =>
            {
                return;
            }
            Between::TurnEnd { decided: None }
            | Between::Response { .. }
            | Between::ToolOutputs => self
                .engine()
                .threshold_decision(DecisionPoint::BeforeTurn, CompactReason::PreTurn),
            Between::Ready => return,
        };
        self.carry_out(decision);
    }

    /// A request starts: the mid-turn decision due after tool outputs is carried out; a pre-turn
    /// decision no turn followed (the same turn went on) is dropped.
    pub(super) fn request_starts(&mut self) {
        match std::mem::replace(&mut self.between, Between::Ready) {
            Between::ToolOutputs | Between::Response { tool_calls: true } => {
                let decision = self
                    .engine()
                    .threshold_decision(DecisionPoint::AfterToolOutputs, CompactReason::MidTurn);
                self.carry_out(decision);
            }
            Between::TurnEnd { .. } | Between::Response { tool_calls: false } | Between::Ready => {}
        }
    }

    /// Carries out `decision` where the recorded session did not compact: a compaction it asks
    /// for is the one a live session would run here, so the engine runs it (offline: a replay
    /// calls no model) and the replay goes on from the compacted history, as a live session
    /// would. The recorded measures from then on are of a history larger by what it removed.
    pub(super) fn carry_out(&mut self, mut decision: Decision) {
        if let Some(reason) = decision.compact_reason() {
            let figures = self.compact_here(reason);
            decision.compaction = figures;
        }
        self.due_decisions.push(decision);
    }
}

/// Where a replayed session stands between two model requests, for the decision due there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Between {
    /// In a request's response: the model's items so far, and whether one called a tool.
    Response {
        /// A tool was called: the outputs follow, then the mid-turn decision.
        tool_calls: bool,
    },
    /// After a response that called tools, its outputs coming in: the mid-turn decision is due.
    ToolOutputs,
    /// After a turn's last response (or before the first turn): the pre-turn decision, taken
    /// (`Some`) or due.
    TurnEnd {
        /// The decision taken where the turn ended, carried out when the next one starts.
        decided: Option<Decision>,
    },
    /// The decisions before the next request are taken: only its own check is left.
    Ready,
}
