//! The engine's decisions: what a host must do at each point of a turn, and why.
//!
//! A host asks the engine at four points of its turn loop and does what the answer says; it
//! never decides on its own when to compact:
//!
//! | point | asked with | answers |
//! |---|---|---|
//! | [`DecisionPoint::BeforeTurn`] | [`crate::ContextEngine::before_turn`] | continue, or compact before the turn |
//! | [`DecisionPoint::BeforeRequest`] | [`crate::ContextEngine::before_request`] | send this prompt, compact first (blocking limit), or fail the turn |
//! | [`DecisionPoint::AfterFailure`] | [`crate::ContextEngine::after_failure`] | compact and send again (an overflow, once a turn), or report the failure |
//! | [`DecisionPoint::AfterToolOutputs`] | [`crate::ContextEngine::after_tool_outputs`] | continue, or compact in the middle of the turn |
//!
//! Every answer is a [`Decision`]: the figures it was taken on (the tokens and the limit they
//! were compared with), the [`Action`], and, once the host ran the compaction it asked for,
//! what that compaction did ([`CompactionFigures`]). The live session, the subagent runner and
//! the replay take the same decisions on the same history; a replay reports them per request.

use serde::Serialize;

use crate::compaction_policy::CompactPoint;
use crate::context_engine::CompactionTier;

/// A prompt at or above this share (in percent) of the effective window whose stream died
/// before its first event is taken for a context overflow: servers such as llama-cpp-python
/// raise inside the stream when the prompt exceeds their `n_ctx`. Our estimate can be far
/// below a local model's own count (SmolLM2's tokenizer splits numbers into single digits: a
/// prompt of numbered notes we put under the 2,976-token blocking limit of a 4,096 window was
/// 4,128 tokens to the server), and estimate and tokenizer stay within a factor of two of each
/// other, so any prompt of at least half the window is a suspect.
pub const OVERFLOW_SUSPECT_PERCENT: u64 = 50;

/// Where in a turn the engine decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionPoint {
    /// Before the turn's user message is recorded: the auto-compact threshold.
    BeforeTurn,
    /// Before a model request is sent: the blocking limit.
    BeforeRequest,
    /// After a model request failed: a context overflow.
    AfterFailure,
    /// After the tool outputs of a response were recorded: the auto-compact threshold.
    AfterToolOutputs,
    /// A compaction the host asked for itself (a user's `/compact`, a model switch).
    HostRequest,
}

/// Why the engine asks for (or the host ran) a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactReason {
    /// The history is over the auto-compact threshold before a turn.
    PreTurn,
    /// The history is over the auto-compact threshold after tool outputs.
    MidTurn,
    /// The next request is at or over the blocking limit.
    Blocking,
    /// The provider refused the request as too long (or its stream died before its first event
    /// on a prompt of at least [`OVERFLOW_SUSPECT_PERCENT`] of the window).
    Overflow,
    /// Before a switch to a model whose window would not hold the history.
    ModelSwitch,
    /// Before a switch in the middle of a turn (a skill the model invoked names its model).
    ModelSwitchMidTurn,
    /// The user asked for it (`/compact`), or a host compacts a recorded history now
    /// (`agentctx compact`), before the turn.
    Requested,
}

impl CompactReason {
    /// Where in the turn the compaction runs: before the turn (the next turn records the
    /// initial context in full) or in its middle (the initial context is put back before the
    /// last user message).
    pub fn point(self) -> CompactPoint {
        match self {
            Self::PreTurn | Self::ModelSwitch | Self::Requested => CompactPoint::PreTurn,
            Self::MidTurn | Self::Blocking | Self::Overflow | Self::ModelSwitchMidTurn => {
                CompactPoint::MidTurn
            }
        }
    }
}

/// Nothing fits: the request is at or over the blocking limit and compacting again cannot help
/// (a compaction has just run, or compaction is off).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ContextFull {
    /// What the request counts against the window.
    pub prompt_tokens: u64,
    /// The blocking limit.
    pub limit: u64,
    /// The model's window.
    pub window_tokens: u64,
    /// The part of the window kept for the output.
    pub reserved_output_tokens: u64,
}

/// What the host must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Nothing to do: go on with the turn (after a failure: the failure is not one compaction
    /// can fix, the host reports it).
    Continue,
    /// Send the request.
    Send,
    /// Compact now ([`crate::ContextEngine::compact`] with this reason), then ask again.
    Compact {
        /// Why.
        reason: CompactReason,
    },
    /// Fail the turn: nothing fits.
    Fail(ContextFull),
}

/// Which limit an auto-compaction decision compared the context with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactTrigger {
    /// The window's own trigger.
    Window,
    /// The token budget (`[compact] auto_compact_tokens`), below the window's trigger: the
    /// engine compacts in stages there (`[compact.staged]`).
    Budget,
}

/// The summary request of a compaction, priced before it was sent (the cost guard's figures;
/// see docs/design/cost-model.md, "The cost guard").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SummaryEstimate {
    /// The tokens the request reads: what it summarises, with the instructions and tools.
    pub input_tokens: u64,
    /// Of them, what the provider's cache holds (the request shares the session's prefix).
    pub cached_tokens: u64,
    /// The summary's budget of output tokens.
    pub output_tokens: u64,
    /// Its price in micro-USD (micro reference units for a model the price table does not
    /// know).
    pub cost_micro_usd: u64,
    /// What the cost guard did to the request, when it was over the limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guard: Option<agentctx_compact::SummaryGuard>,
}

/// What a compaction the engine ran did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CompactionFigures {
    /// The tier that compacted (the stage that sufficed, for a staged compaction).
    pub tier: CompactionTier,
    /// Our estimate of the history before.
    pub tokens_before: u64,
    /// Our estimate of the history after (restoration included).
    pub tokens_after: u64,
    /// The summary request, when a summary was written for this compaction here (by the model
    /// or offline; none for the mask stage, the session-memory tier or the provider's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<SummaryEstimate>,
}

/// One decision of the engine, with the figures it was taken on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// Where in the turn.
    pub point: DecisionPoint,
    /// The model requests the engine had prepared when it decided (the request a
    /// [`DecisionPoint::BeforeRequest`] decision is about; the last one otherwise).
    pub request: u64,
    /// The tokens judged: our usage of the history, or for a request what it counts against
    /// the window (the larger of our estimate of the prompt and the usage the last measure
    /// implies).
    pub tokens: u64,
    /// The limit they were compared with: the auto-compact threshold, the blocking limit, or for
    /// an overflow the effective window.
    pub limit: u64,
    /// What the host must do.
    #[serde(flatten)]
    pub action: Action,
    /// For an auto-compaction check (before the turn, after tool outputs): whether its limit
    /// was the window's trigger or the token budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<CompactTrigger>,
    /// What the compaction asked for did, once it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction: Option<CompactionFigures>,
}

impl Decision {
    /// The reason of a compaction the decision asks for.
    pub fn compact_reason(&self) -> Option<CompactReason> {
        match self.action {
            Action::Compact { reason } => Some(reason),
            Action::Continue | Action::Send | Action::Fail(_) => None,
        }
    }
}

/// Why the cost-aware micro-compaction cleared or kept the old tool results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MicroCostReason {
    /// Nothing of the history is cached (no request measured since it was rewritten): the
    /// clear costs nothing extra.
    CacheEmpty,
    /// The cache expired: the whole prompt is written again anyway.
    CacheCold,
    /// The price table does not know the model (a local server): nothing is billed, so the
    /// tier's own rule decides.
    Unpriced,
    /// The cache is warm and what the clear saves over the remaining requests exceeds writing
    /// the prompt after the first cleared result again.
    PaysBack,
    /// The cache is warm and the clear would cost more than it saves: the results stay.
    DoesNotPay,
    /// The cache is warm and the clear pays over the expected remaining requests, but writing
    /// the prompt again costs more than the earlier clears have saved so far: should the session
    /// end before it pays back, it would cost more than keeping the results, which stay.
    NotYetCovered,
}

/// The cost-aware micro-compaction decision of one request, with the figures it was priced
/// on (see docs/design/cost-model.md). Costs are in micro-USD when the price table knows the
/// model, else in micro-units of the cost model's reference prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MicroCostDecision {
    /// Whether the results are cleared. With `micro.cost_aware` off every clear the tier finds
    /// worthwhile is applied, and priced after the fact: `reason` then says what the price was.
    pub clear: bool,
    /// Why.
    pub reason: MicroCostReason,
    /// Whether the provider holds the last request's prompt.
    pub cache: crate::cost_model::CacheState,
    /// Milliseconds since the last request, on the session's clock (the recorded one in a
    /// replay); none when no request was sent since the history was rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap_ms: Option<u64>,
    /// The prompt as it would be sent without clearing.
    pub prompt_tokens: u64,
    /// Of it, what the provider holds in its cache.
    pub cached_tokens: u64,
    /// The prompt before the first result the clear replaces: it stays cached.
    pub prefix_tokens: u64,
    /// What the clear takes out (an upper bound when the decision kept the results without a
    /// new plan, see `docs/design/cost-model.md`).
    pub tokens_saved: u64,
    /// The requests expected after this one.
    pub remaining_requests: u64,
    /// This request's input sent as is.
    pub send_as_is_micro_usd: u64,
    /// This request's input after the clear.
    pub clear_micro_usd: u64,
    /// What the remaining requests save by the clear.
    pub remaining_saving_micro_usd: u64,
}

/// How a model request failed, as far as the engine needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestFailure {
    /// The provider said the prompt is longer than the model's window.
    pub context_window_exceeded: bool,
    /// The stream died (disconnected, undecodable, a server error) before its first output
    /// event: a local server may fail so on a prompt over its window.
    pub died_before_output: bool,
    /// What the request counted against the window ([`Decision::tokens`] of its
    /// [`DecisionPoint::BeforeRequest`] decision).
    pub prompt_tokens: u64,
}

/// The answer to [`crate::ContextEngine::before_request`]: send this prompt, compact first, or
/// fail the turn.
#[derive(Debug)]
pub enum RequestStep<'a> {
    /// Send it.
    Send {
        /// The prompt to send.
        prompt: agentctx_model::Prompt<'a>,
        /// The tokens the engine counted it at: what
        /// [`crate::StreamFailure::request_failure`] needs when the request fails.
        tokens: u64,
    },
    /// Compact with this reason ([`crate::ContextEngine::compact`]), then prepare the request
    /// again.
    Compact(CompactReason),
    /// Nothing fits: fail the turn.
    Fail(ContextFull),
}

#[cfg(test)]
#[path = "decision_tests.rs"]
mod tests;
