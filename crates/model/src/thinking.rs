//! Extended thinking, as docs/design/model-providers.md, 'Thinking levels and the capability table', describes it: two levels,
//! keyword detection with byte positions, a session toggle, the 7-step priority chain, per-model
//! capability overrides, and the mapping of a level to provider parameters (Anthropic budget
//! tokens, OpenAI reasoning effort, Gemini thinking level).
//!
//! This is application layer: the HTTP transport only sends the final
//! [`crate::ReasoningOptions`] it is given.

mod capability;
mod effective;
mod keyword;
mod provider_mapping;
mod settings;
mod state;

pub use capability::BudgetByLevel;
pub use capability::DEFAULT_DEEP_THINK_BUDGET;
pub use capability::DEFAULT_ULTRA_THINK_BUDGET;
pub use capability::ThinkingCapabilityOverride;
pub use effective::ThinkingInputs;
pub use effective::ThinkingResult;
pub use effective::ThinkingSource;
pub use effective::compute_effective_thinking;
pub use keyword::KeywordConfig;
pub use keyword::detect_thinking_keyword;
pub use keyword::extract_keyword_positions;
pub use provider_mapping::ANTHROPIC_DEEP_THINK_BUDGET_RANGE;
pub use provider_mapping::ANTHROPIC_MIN_BUDGET_TOKENS;
pub use provider_mapping::ANTHROPIC_ULTRA_THINK_BUDGET_RANGE;
pub use provider_mapping::GeminiThinkingLevel;
pub use provider_mapping::anthropic_budget_tokens;
pub use provider_mapping::gemini_thinking_level;
pub use provider_mapping::openai_reasoning_effort;
pub use provider_mapping::reasoning_options_for;
pub use settings::ENV_INTERLEAVED_THINKING;
pub use settings::ENV_MAX_THINKING_TOKENS;
pub use settings::ENV_THINKING_LEVEL;
pub use settings::ThinkingConfig;
pub use settings::ThinkingEnvOverride;
pub use settings::ThinkingSettings;
pub use settings::parse_thinking_level;
pub use state::ThinkingState;
