//! Wire types shared by every agentctx crate.
//!
//! `agentctx-protocol` is floor 0 of the workspace: it does no I/O and has no async runtime. It holds
//! the conversation items ([`ResponseItem`], [`ContentItem`]), the rollout lines of a session file
//! ([`RolloutLine`], [`RolloutItem`]), token usage, todo items, the permission mode, thinking levels,
//! loop events and the reminder XML tags. Its JSON is that of codex-rs: a real `~/.codex/sessions`
//! file reads and writes back unchanged, because unknown variants and unknown fields are kept
//! verbatim, and whatever a typed payload cannot hold (a `null`, a field of a nested content part,
//! an alias) is kept beside it in [`RolloutLine::fidelity`] and put back on write.
//!
//! It also holds the vocabulary the other crates share about those items, each defined once:
//! which items the model generated ([`is_model_generated`]), where a user turn starts
//! ([`is_user_turn_start`]) and what harness text is ([`is_harness_user_text`]), the AGENTS.md
//! message ([`agents_md_message`]), an invoked skill ([`InvokedSkill`]) and a background task
//! ([`BackgroundTask`]).
//!
//! ```
//! use agentctx_protocol::RolloutItem;
//! use agentctx_protocol::RolloutLine;
//! use agentctx_protocol::ResponseItem;
//!
//! let line = r#"{"timestamp":"2025-10-01T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}],"future_field":1}}"#;
//! let parsed: RolloutLine = serde_json::from_str(line).unwrap();
//! let RolloutItem::ResponseItem(item) = &parsed.item else { panic!("a response item") };
//! assert_eq!(item.message_text().as_deref(), Some("hi"));
//! // The unknown field survives the round trip.
//! let written = serde_json::to_value(&parsed).unwrap();
//! assert_eq!(written, serde_json::from_str::<serde_json::Value>(line).unwrap());
//! # let _ = ResponseItem::user_text("x");
//! ```

mod agents_md;
mod background_task;
mod compaction_copy;
mod context_markers;
mod item_classification;
mod json_string_scan;
mod lazy_rollout_line;
mod loop_event;
mod models;
mod payload_compare;
mod payload_fidelity;
mod permission_mode;
mod reminder_tags;
mod restored_context_texts;
mod rollout;
mod thinking_level;
mod todo;
mod token_usage;
mod typed_payload;

pub use agents_md::agents_md_message;
pub use agents_md::is_agents_md_message;
pub use background_task::BackgroundTask;
pub use background_task::BackgroundTaskStatus;
pub use background_task::BackgroundTaskType;
pub use compaction_copy::CompactMode;
pub use compaction_copy::READABLE_COPY_FIELD;
pub use compaction_copy::WRITTEN_BY_FIELD;
pub use context_markers::CLAUDE_CODE_COMMAND_NAME_OPEN_TAG;
pub use context_markers::CLAUDE_CODE_CONTINUATION_PREFIX;
pub use context_markers::CLAUDE_CODE_HARNESS_PREFIXES;
pub use context_markers::COLLABORATION_MODE_CLOSE_TAG;
pub use context_markers::COLLABORATION_MODE_OPEN_TAG;
pub use context_markers::COMPACTION_SUMMARY_PREFIX;
pub use context_markers::COMPACTION_SUMMARY_PREFIXES;
pub use context_markers::CONTEXTUAL_USER_MARKERS;
pub use context_markers::ENVIRONMENT_CONTEXT_CLOSE_TAG;
pub use context_markers::ENVIRONMENT_CONTEXT_OPEN_TAG;
pub use context_markers::MODEL_SWITCH_CLOSE_TAG;
pub use context_markers::MODEL_SWITCH_OPEN_TAG;
pub use context_markers::PERSONALITY_SPEC_CLOSE_TAG;
pub use context_markers::PERSONALITY_SPEC_OPEN_TAG;
pub use context_markers::USER_INSTRUCTIONS_PREFIXES;
pub use context_markers::is_claude_code_harness_text;
pub use context_markers::is_contextual_developer_fragment;
pub use context_markers::is_contextual_user_fragment;
pub use context_markers::is_contextual_user_message_content;
pub use context_markers::is_harness_user_text;
pub use item_classification::is_model_generated;
pub use item_classification::is_user_turn_start;
pub use json_string_scan::quote_escape_or_control_marks;
pub use lazy_rollout_line::LazyLineError;
pub use lazy_rollout_line::LazyRolloutLine;
pub use lazy_rollout_line::PartRead;
pub use lazy_rollout_line::ReadInPart;
pub use lazy_rollout_line::TypeAsRead;
pub use loop_event::LoopEvent;
pub use models::ContentItem;
pub use models::ExtraFields;
pub use models::FunctionCallOutputBody;
pub use models::FunctionCallOutputContentItem;
pub use models::FunctionCallOutputPayload;
pub use models::ReasoningContent;
pub use models::ReasoningSummary;
pub use models::ResponseItem;
pub use payload_fidelity::PayloadFidelity;
pub use permission_mode::PermissionMode;
pub use reminder_tags::SYSTEM_REMINDER_CLOSE_TAG;
pub use reminder_tags::SYSTEM_REMINDER_OPEN_TAG;
pub use reminder_tags::TEAMMATE_MESSAGE_OPEN_TAG;
pub use reminder_tags::XmlTag;
pub use reminder_tags::is_system_reminder_message;
pub use reminder_tags::is_system_reminder_text;
pub use restored_context_texts::InvokedSkill;
pub use restored_context_texts::compact_file_reference_text;
pub use restored_context_texts::invoked_skills_text;
pub use restored_context_texts::plan_file_reference_text;
pub use rollout::AgentMessageEvent;
pub use rollout::CompactedItem;
pub use rollout::EventMsg;
pub use rollout::RolloutItem;
pub use rollout::RolloutLine;
pub use rollout::RolloutLineError;
pub use rollout::SessionMetaLine;
pub use rollout::TextEvent;
pub use rollout::ThreadRolledBackEvent;
pub use rollout::TokenCountEvent;
pub use rollout::TurnContextItem;
pub use rollout::UserMessageEvent;
pub use thinking_level::ThinkingLevel;
pub use todo::TodoItem;
pub use todo::TodoStatus;
pub use token_usage::TokenUsage;
pub use token_usage::TokenUsageInfo;
