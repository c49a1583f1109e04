//! The thinking level of every request: the priority chain of `agentctx_model::thinking`
//! (environment > keyword in the prompt > session toggle > per-turn override > `[thinking]`
//! default > the model's default) turned into the request's reasoning parameters for the wire
//! the client speaks. The session computes it once per turn from the user's message and sends it
//! on every request of the turn; a subagent computes it from its task; the full compaction's
//! summary request carries the turn's. See docs/design/model-providers.md, "Thinking levels".

use agentctx_model::ModelClient;
use agentctx_model::ReasoningOptions;
use agentctx_model::thinking::ThinkingConfig;
use agentctx_model::thinking::ThinkingEnvOverride;
use agentctx_model::thinking::ThinkingInputs;
use agentctx_model::thinking::ThinkingResult;
use agentctx_model::thinking::ThinkingSettings;
use agentctx_model::thinking::ThinkingState;
use agentctx_model::thinking::compute_effective_thinking;
use agentctx_model::thinking::reasoning_options_for;

pub(crate) use agentctx_engine::replay::record_reasoning;

/// What decides a session's thinking besides the message: the `[thinking]` section, the
/// environment overrides and an override for every turn (`run --thinking`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThinkingOptions {
    /// `[thinking]` (defaults, keywords, budgets).
    pub settings: ThinkingSettings,
    /// The `COCODE_THINKING_LEVEL` / `COCODE_MAX_THINKING_TOKENS` / interleaved variables.
    pub env: ThinkingEnvOverride,
    /// An override applied to every turn (priority step 4).
    pub per_turn: Option<ThinkingConfig>,
}

/// The thinking of one request: the chain's verdict and the parameters sent (`None`: the
/// provider's default).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TurnThinking {
    /// What the priority chain decided, and which step decided.
    pub result: ThinkingResult,
    /// The request's reasoning parameters.
    pub reasoning: Option<ReasoningOptions>,
}

/// The thinking of a request for `message` to `model`.
pub(crate) fn turn_thinking(
    options: &ThinkingOptions,
    toggle: ThinkingState,
    message: &str,
    model: &dyn ModelClient,
) -> TurnThinking {
    let result = compute_effective_thinking(&ThinkingInputs {
        message,
        env: &options.env,
        session_state: &toggle,
        per_turn_config: options.per_turn.as_ref(),
        settings: &options.settings,
        model_info: model.model_info(),
        provider_ext: None,
    });
    let reasoning = reasoning_options_for(&result, model.provider_identity().wire_api);
    TurnThinking { result, reasoning }
}

#[cfg(test)]
#[path = "thinking_ext_tests.rs"]
mod tests;
