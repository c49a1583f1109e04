//! The one way agentctx talks to a language model.
//!
//! `agentctx-model` sits on floor 1 and depends only on `agentctx-protocol`. It provides:
//!
//! - the [`ModelClient`] trait: stream a [`Prompt`] into [`ResponseEvent`]s, or
//!   [`ModelClient::complete`] / [`ModelClient::complete_structured`] for one-shot calls; a
//!   prompt's items are `Cow`s, borrowed from the caller's history or owned;
//! - [`HttpModelClient`], real HTTP + SSE providers for the OpenAI Responses API,
//!   OpenAI-compatible Chat Completions (Ollama, LM Studio, vLLM, llama.cpp server) and the
//!   Anthropic Messages API, configured by [`ProviderConfig`] as codex `model_providers` are,
//!   with a built-in model table (windows, output limits, accepted reasoning efforts) behind
//!   [`ProviderConfig::model_info`];
//! - classified errors ([`ModelError`], with [`ModelError::context_overflow`] for the numbers of
//!   a context-window error), retries with exponential backoff and jitter, and dropped streams
//!   sent again only while no output item has completed (a new request is a new sample; after
//!   an item completed the turn must be redone whole); deterministic failures (a 5xx validation
//!   body, a stream that breaks the same way twice) are not retried, an answer that completes
//!   empty is asked for once more, and a server that never answers times out;
//! - [`thinking`]: the thinking levels (docs/design/model-providers.md), keywords, session toggle, priority chain
//!   and provider mappings (application layer; the transport only sends final parameters);
//! - [`PriceTable`]: LiteLLM's model prices and context windows, vendored under `data/litellm/`
//!   (`cargo xtask prices` refreshes it), with [`ModelPrice::cost`] pricing [`TokenCounts`]
//!   cached tokens as cached; it also fills the windows of models the model table lacks;
//! - [`ScriptedModelClient`], which replays scripted responses for tests of the crates above.
//!
//! ```
//! use agentctx_model::ModelClient;
//! use agentctx_model::ScriptedModelClient;
//! use agentctx_model::ScriptedResponse;
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let model = ScriptedModelClient::new("test-model");
//! model.push(ScriptedResponse::new().with_reasoning("thinking it over").with_text("Hello!"));
//!
//! let reply = model.complete("You are terse.", "Say hello").await.unwrap();
//! assert_eq!(reply, "Hello!");
//!
//! // The prompt the model received is recorded for assertions.
//! let prompt = model.last_prompt().unwrap();
//! assert_eq!(prompt.instructions, "You are terse.");
//! assert_eq!(prompt.input[0].message_text().as_deref(), Some("Say hello"));
//! # });
//! ```

#![warn(missing_docs)]
mod client;
mod context_management;
mod error;
mod error_text;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod http_client;
mod json_post;
mod model_info;
mod model_limits;
mod model_table;
mod price_table;
mod prompt;
mod provider_config;
mod provider_env;
mod remote_compaction;
mod request_pricing;
mod response_event;
mod retry;
mod scripted;
mod sse_text;
mod stream_driver;
mod stream_resume;
mod structured_output;
pub mod thinking;
mod window_probe;
mod wire;

pub use client::ModelClient;
pub use client::complete_prompt;
pub use context_management::AllThinking;
pub use context_management::AnthropicCompaction;
pub use context_management::COMPACTION_BETA;
pub use context_management::CONTEXT_MANAGEMENT_BETA;
pub use context_management::ClearThinking;
pub use context_management::ClearToolUses;
pub use context_management::ClearTrigger;
pub use context_management::ContextManagementConfig;
pub use context_management::KeepThinking;
pub use error::ContextOverflow;
pub use error::ModelError;
pub use http_client::HttpModelClient;
pub use json_post::JsonPostError;
pub use json_post::JsonPostResponse;
pub use json_post::post_json;
pub use model_info::DEFAULT_CONTEXT_WINDOW;
pub use model_info::LimitSource;
pub use model_info::MaxTokensField;
pub use model_info::ModelEntry;
pub use model_info::ModelInfo;
pub use model_limits::ResolvedModel;
pub use model_table::CONTEXT_1M_BETA;
pub use model_table::known_context_window;
pub use model_table::one_million_mode;
pub use price_table::ModelPrice;
pub use price_table::PriceMatch;
pub use price_table::PriceTable;
pub use price_table::PriceTableError;
pub use price_table::TokenCounts;
pub use prompt::Prompt;
pub use prompt::ReasoningEffort;
pub use prompt::ReasoningOptions;
pub use prompt::ReasoningSummaryMode;
pub use prompt::ToolSpec;
pub use prompt::owned_items;
pub use provider_config::ModelConfig;
pub use provider_config::PromptCacheTtl;
pub use provider_config::ProviderConfig;
pub use provider_config::ProviderEntry;
pub use provider_config::SystemMessageMode;
pub use provider_config::WireApi;
pub use provider_env::BaseUrlSource;
pub use provider_env::ResolvedProvider;
pub use provider_env::base_url_env_var;
pub use provider_env::ollama_host_url;
pub use remote_compaction::ProviderIdentity;
pub use remote_compaction::RemoteCompactionSupport;
pub use remote_compaction::provider_compaction_summary;
pub use request_pricing::BilledRequest;
pub use request_pricing::LongContextTier;
pub use request_pricing::PriceRules;
pub use request_pricing::RequestCost;
pub use response_event::AppliedContextEdit;
pub use response_event::ProviderContextReport;
pub use response_event::RateLimitSnapshot;
pub use response_event::ResponseEvent;
pub use response_event::ResponseStream;
pub use retry::BACKOFF_FACTOR;
pub use retry::INITIAL_RETRY_DELAY;
pub use retry::MAX_BACKOFF;
pub use retry::MAX_RETRY_AFTER;
pub use retry::backoff;
pub use retry::retry_delay;
pub use scripted::ScriptedModelClient;
pub use scripted::ScriptedResponse;
pub use structured_output::StructuredOutputError;
pub use structured_output::StructuredOutputFallback;
pub use structured_output::StructuredOutputMode;
pub use structured_output::complete_structured;
pub use structured_output::output_schema_for;
pub use structured_output::parse_structured;
pub use structured_output::refuses_request_shape;
pub use structured_output::structured_instructions;
pub use window_probe::ProbedWindow;
pub use window_probe::WINDOW_PROBE_TIMEOUT;
pub use window_probe::probe_context_window;
pub use wire::anthropic_messages::DEFAULT_ANTHROPIC_MAX_TOKENS;
pub use wire::anthropic_messages::INTERLEAVED_THINKING_BETA;
pub use wire::anthropic_messages::MIN_ANTHROPIC_MAX_TOKENS;
pub use wire::anthropic_messages::STRUCTURED_OUTPUT_TOOL;
