//! Token estimation, truncation and the history the model sees.
//!
//! `agentctx-context` is floor 1 of the workspace: it depends only on `agentctx-protocol`. It
//! owns what codex-rs keeps in `context_manager/` and `truncate.rs`:
//!
//! - token estimation behind [`TokenEstimator`]: the codex heuristic ([`ApproxTokenEstimator`],
//!   4 bytes per token over an item's JSON) and, with the `tiktoken` feature, exact o200k counts
//!   (`O200kTokenEstimator`);
//! - truncation ([`TruncationPolicy`], [`truncate_text`], [`formatted_truncate_text`],
//!   [`truncate_function_output_items_with_policy`]) with the codex marker texts;
//! - [`ContextManager`]: the history oldest→newest, tool outputs truncated on record, the
//!   normalised prompt view, token accounting measured once per item, and the reference context
//!   item that settings diffs ([`build_settings_update_items`], `<model_switch>`) are computed
//!   against;
//! - [`MessageHistory`]: the global `history.jsonl` of prompts.
//!
//! ```
//! use agentctx_context::ContextManager;
//! use agentctx_context::InputModality;
//! use agentctx_context::TruncationPolicy;
//! use agentctx_protocol::ResponseItem;
//!
//! let mut history = ContextManager::new();
//! history.record_items(
//!     [
//!         ResponseItem::user_text("list the files"),
//!         ResponseItem::function_call("call-1", "shell", r#"{"command":["ls"]}"#),
//!         // A huge tool output is cut in the middle when recorded.
//!         ResponseItem::function_call_output("call-1", "x".repeat(100_000)),
//!         // A call that never got its output.
//!         ResponseItem::function_call("call-2", "shell", r#"{"command":["pwd"]}"#),
//!     ],
//!     TruncationPolicy::Tokens(1_000),
//! );
//! let ResponseItem::FunctionCallOutput { output, .. } = &history.raw_items()[2] else {
//!     unreachable!()
//! };
//! assert!(output.text_content().contains("tokens truncated"));
//!
//! // The prompt view pairs every call with an output.
//! let prompt = history.for_prompt(&InputModality::TEXT_AND_IMAGE);
//! assert_eq!(prompt.len(), 5);
//! assert_eq!(prompt[4].call_id(), Some("call-2"));
//!
//! // Estimates are measured once per item and summed in O(1).
//! assert!(history.estimate_token_count() > 1_000);
//! ```

mod context_manager;
mod contextual_user_message;
mod estimated_items;
mod function_output_truncation;
mod input_modality;
mod item_classification;
mod message_history;
mod normalize;
#[cfg(feature = "tiktoken")]
mod o200k_estimator;
mod settings_update;
mod token_estimator;
mod token_usage_breakdown;
mod truncate;
mod truncation_policy;

pub use context_manager::ContextManager;
pub use contextual_user_message::is_contextual_user_fragment;
pub use contextual_user_message::is_contextual_user_message;
pub use contextual_user_message::is_contextual_user_message_content;
pub use contextual_user_message::wrap_contextual_fragment;
pub use function_output_truncation::truncate_function_output_items_with_policy;
pub use function_output_truncation::truncate_function_output_payload;
pub use function_output_truncation::truncate_tool_output_item;
pub use input_modality::InputModality;
pub use item_classification::is_api_message;
pub use item_classification::is_harness_generated_item;
pub use item_classification::is_model_generated_item;
pub use item_classification::is_user_turn_boundary;
pub use message_history::HISTORY_FILENAME;
pub use message_history::HISTORY_SOFT_CAP_RATIO;
pub use message_history::HistoryEntries;
pub use message_history::HistoryEntry;
pub use message_history::HistoryMetadata;
pub use message_history::HistoryPersistence;
pub use message_history::LOCK_RETRY_SLEEP;
pub use message_history::MAX_LOCK_RETRIES;
pub use message_history::MessageHistory;
pub use message_history::MessageHistoryConfig;
pub use message_history::MessageHistoryError;
pub use normalize::ABORTED_OUTPUT_TEXT;
pub use normalize::IMAGE_OMITTED_PLACEHOLDER;
pub use normalize::ensure_call_outputs_present;
pub use normalize::find_corresponding;
pub use normalize::has_images;
pub use normalize::normalize_history;
pub use normalize::remove_corresponding_for;
pub use normalize::remove_orphan_outputs;
pub use normalize::replace_images;
pub use normalize::strip_images_when_unsupported;
pub use normalize::synthetic_output_id;
#[cfg(feature = "tiktoken")]
pub use o200k_estimator::ITEM_OVERHEAD_TOKENS;
#[cfg(feature = "tiktoken")]
pub use o200k_estimator::O200kTokenEstimator;
pub use settings_update::EnvironmentContext;
pub use settings_update::TurnSettings;
pub use settings_update::build_collaboration_mode_update_item;
pub use settings_update::build_environment_update_item;
pub use settings_update::build_model_instructions_update_item;
pub use settings_update::build_permissions_update_item;
pub use settings_update::build_personality_update_item;
pub use settings_update::build_settings_update_items;
pub use settings_update::collaboration_mode_message;
pub use settings_update::extract_trailing_model_switch_update;
pub use settings_update::is_model_switch_message;
pub use settings_update::model_switch_message;
pub use settings_update::personality_spec_message;
pub use token_estimator::APPROX_BYTES_PER_TOKEN;
pub use token_estimator::ApproxTokenEstimator;
pub use token_estimator::ENCRYPTED_CONTENT_OVERHEAD_BYTES;
pub use token_estimator::IMAGE_BYTES_ESTIMATE;
pub use token_estimator::ItemSize;
pub use token_estimator::TokenEstimator;
pub use token_estimator::approx_bytes_for_tokens;
pub use token_estimator::approx_token_count;
pub use token_estimator::approx_tokens_from_byte_count;
pub use token_estimator::estimate_item_model_visible_bytes;
pub use token_usage_breakdown::TotalTokenUsageBreakdown;
pub use truncate::MAX_TRUNCATION_MARKER_BYTES;
pub use truncate::formatted_truncate_text;
pub use truncate::truncate_middle_chars;
pub use truncate::truncate_middle_with_token_budget;
pub use truncate::truncate_text;
pub use truncate::truncation_marker;
pub use truncation_policy::DEFAULT_TOOL_OUTPUT_TOKENS;
pub use truncation_policy::DEFAULT_TRUNCATION_BYTES;
pub use truncation_policy::TOOL_OUTPUT_SERIALIZATION_MULTIPLIER;
pub use truncation_policy::TruncationPolicy;
