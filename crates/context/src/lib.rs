//! Token estimation, truncation and the history the model sees.
//!
//! `agentctx-context` is floor 1 of the workspace: it depends only on `agentctx-protocol`. It
//! owns what codex-rs keeps in `context_manager/` and `truncate.rs`:
//!
//! - token estimation behind [`TokenEstimator`]: the codex heuristic ([`ApproxTokenEstimator`],
//!   4 bytes per token over an item's JSON), a character-class estimator calibrated against
//!   o200k ([`CalibratedTokenEstimator`]) and, with the `tiktoken` feature, exact o200k counts
//!   (`O200kTokenEstimator`);
//! - truncation ([`TruncationPolicy`], [`truncate_text`], [`formatted_truncate_text`],
//!   [`truncate_function_output_items_with_policy`]) with the codex marker texts;
//! - [`ContextManager`]: the history oldest→newest, tool outputs truncated on record, the
//!   normalised prompt view, token accounting measured once per item, and the reference context
//!   item that settings diffs ([`TurnSettings`], `<model_switch>`) are computed
//!   against;
//! - [`MessageHistory`]: the global `history.jsonl` of prompts.
//!
//! The behaviour, the constants and the model-visible texts, and why, are described in
//! docs/design/context-and-tokens.md.
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

mod calibrated_estimator;
mod context_manager;
mod contextual_user_message;
mod digest;
mod estimated_items;
mod function_output_truncation;
mod image_size;
mod input_modality;
mod item_classification;
mod item_text_tokens;
mod json_len;
mod message_history;
mod normalize;
#[cfg(feature = "tiktoken")]
mod o200k_estimator;
mod prompt_pairing;
mod settings_update;
mod token_estimator;
mod token_usage_breakdown;
mod truncate;
mod truncation_policy;

pub use calibrated_estimator::CalibratedTokenEstimator;
pub use context_manager::ContextManager;
pub use contextual_user_message::is_contextual_user_fragment;
pub use digest::CommandRun;
pub use digest::ErrorNote;
pub use digest::HistoryDigest;
pub use digest::JsonShellOutput;
pub use digest::ShellFileRead;
pub use digest::ShellOutput;
pub use digest::clip_one_line;
pub use digest::first_cut_marker;
pub use digest::has_cut_marker;
pub use digest::is_harness_user_text;
pub use digest::is_summary_message_text;
pub use digest::json_exit_code;
pub use digest::json_shell_output;
pub use digest::local_shell_file_read;
pub use digest::patch_paths;
pub use digest::shell_file_read;
pub use digest::shell_output;
pub use digest::user_request_text;
pub use function_output_truncation::truncate_function_output_items_with_policy;
pub use image_size::IMAGE_TOKENS_ESTIMATE;
pub use image_size::anthropic_image_tokens;
pub use image_size::inline_image_size;
pub use image_size::inline_images;
pub use input_modality::InputModality;
pub use message_history::HistoryEntries;
pub use message_history::HistoryEntry;
pub use message_history::HistoryMetadata;
pub use message_history::HistoryPersistence;
pub use message_history::MessageHistory;
pub use message_history::MessageHistoryConfig;
pub use message_history::MessageHistoryError;
#[cfg(feature = "tiktoken")]
pub use o200k_estimator::O200kTokenEstimator;
pub use settings_update::EnvironmentContext;
pub use settings_update::TurnSettings;
pub use settings_update::extract_trailing_model_switch_update;
pub use token_estimator::ApproxTokenEstimator;
pub use token_estimator::ItemSize;
pub use token_estimator::TokenEstimator;
pub use token_estimator::approx_token_count;
pub use token_estimator::approx_tokens_from_byte_count;
pub use token_usage_breakdown::TotalTokenUsageBreakdown;
pub use truncate::MAX_TRUNCATION_MARKER_BYTES;
pub use truncate::formatted_truncate_text;
pub use truncate::truncate_middle_with_token_budget;
pub use truncate::truncate_text;
pub use truncation_policy::TruncationPolicy;
