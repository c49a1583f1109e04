//! [`LoopConfig`]: the `[loop]` section of the configuration, with `[loop.context_passing]`,
//! `[loop.budget]` and `[loop.prices]`. See docs/design/loop-driver.md, "Configuration".

use std::path::PathBuf;

use agentctx_protocol::TokenUsage;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// Summaries longer than this many tokens are cut (default of `summary_max_tokens`).
pub(crate) const DEFAULT_SUMMARY_MAX_TOKENS: usize = 500;
/// Iterations in a row without progress that stop a loop (default of `no_progress_iterations`).
pub(crate) const DEFAULT_NO_PROGRESS_ITERATIONS: u32 = 3;
/// Failed iterations in a row that stop a loop (default of `max_consecutive_failures`).
pub(crate) const DEFAULT_MAX_CONSECUTIVE_FAILURES: u32 = 3;

/// The loop driver's configuration (`[loop]`). Every field has a default, so an empty table (or
/// none) gives [`LoopConfig::default`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LoopConfig {
    /// Context passing between iterations (`[loop.context_passing]`).
    pub context_passing: ContextPassingConfig,
    /// Limits checked before every iteration (`[loop.budget]`).
    pub budget: LoopBudget,
    /// Prices of the agent's model, for the cost budget (`[loop.prices]`); without them cost is
    /// not counted and `budget.max_cost_usd` is refused.
    pub prices: Option<TokenPrices>,
    /// Stop after this many iterations in a row that changed nothing or repeated an earlier
    /// iteration's diff (default 3; 0 never stops for this).
    pub no_progress_iterations: u32,
    /// Stop after this many failed iterations in a row (default 3; 0 never stops for this).
    pub max_consecutive_failures: u32,
    /// What a failed commit (a rejecting hook, say) does: count the iteration as failed and go
    /// on (`continue`, the default), or end the loop (`stop`).
    pub on_commit_failure: CommitFailurePolicy,
    /// Folders searched for the plan (the newest `*.md`), relative to the repository root
    /// unless absolute (default `.agentctx/plans`, `.claude/plans`).
    pub plan_dirs: Vec<PathBuf>,
}

impl Default for LoopConfig {
    fn default() -> Self {
        Self {
            context_passing: ContextPassingConfig::default(),
            budget: LoopBudget::default(),
            prices: None,
            no_progress_iterations: DEFAULT_NO_PROGRESS_ITERATIONS,
            max_consecutive_failures: DEFAULT_MAX_CONSECUTIVE_FAILURES,
            on_commit_failure: CommitFailurePolicy::Continue,
            plan_dirs: vec![
                PathBuf::from(".agentctx/plans"),
                PathBuf::from(".claude/plans"),
            ],
        }
    }
}

/// `[loop.context_passing]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ContextPassingConfig {
    /// Inject the task, plan and previous iterations into every prompt (default true). Off,
    /// every iteration gets the user's prompt alone.
    pub enabled: bool,
    /// Commit each iteration's changes (default true).
    pub auto_commit: bool,
    /// Summarise each iteration through the model (default true). Off, the summary is built
    /// from the history without a model.
    pub generate_summary: bool,
    /// Summaries are cut to this many tokens (default 500).
    pub summary_max_tokens: usize,
    /// The model that writes commit messages, e.g. a small fast one; the host resolves the
    /// name and hands the client to the driver. Default: the summariser's model.
    pub commit_message_model: Option<String>,
}

impl Default for ContextPassingConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            auto_commit: true,
            generate_summary: true,
            summary_max_tokens: DEFAULT_SUMMARY_MAX_TOKENS,
            commit_message_model: None,
        }
    }
}

/// `[loop.budget]`: every limit is off unless set.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LoopBudget {
    /// The most iterations, whatever the condition (a cap for duration loops).
    pub max_iterations: Option<u32>,
    /// The most wall time in seconds, whatever the condition (a cap for iteration loops).
    pub max_wall_time_seconds: Option<u64>,
    /// The most tokens the agent may use, over every iteration.
    pub max_total_tokens: Option<i64>,
    /// The most the agent's tokens may cost in US dollars; needs `[loop.prices]`.
    pub max_cost_usd: Option<f64>,
}

/// `on_commit_failure`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommitFailurePolicy {
    /// Count the iteration as failed and go on; its changes stay staged and are committed with
    /// the next iteration that commits.
    #[default]
    Continue,
    /// End the loop with [`crate::LoopOutcome::CommitFailed`].
    Stop,
}

/// `[loop.prices]`: US dollars per million tokens of the agent's model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenPrices {
    /// Uncached input tokens.
    pub input_per_million: f64,
    /// Input tokens read from the provider's cache (default: the input price).
    #[serde(default)]
    pub cached_input_per_million: Option<f64>,
    /// Output tokens, reasoning included.
    pub output_per_million: f64,
}

impl TokenPrices {
    /// What `usage` costs in US dollars.
    pub fn cost_usd(&self, usage: &TokenUsage) -> f64 {
        let cached = usage
            .cached_input_tokens
            .clamp(0, usage.input_tokens.max(0));
        let uncached = usage.input_tokens.max(0) - cached;
        let cached_price = self
            .cached_input_per_million
            .unwrap_or(self.input_per_million);
        // Token counts are far below 2^53, so the conversions are exact.
        #[expect(
            clippy::cast_precision_loss,
            reason = "token counts are far below 2^53"
        )]
        let dollars = (uncached as f64 * self.input_per_million
            + cached as f64 * cached_price
            + usage.output_tokens.max(0) as f64 * self.output_per_million)
            / 1_000_000.0;
        dollars
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
