//! One background extraction: the part of the history the summary does not cover yet goes to
//! the model with the current summary, and the model's new summary replaces `summary.md`. See
//! docs/design/compaction.md, "Session memory".

use agentctx_context::TruncationPolicy;
use agentctx_context::approx_token_count;
use agentctx_context::truncate_text;
use agentctx_model::ModelClient;
use agentctx_model::Prompt;
use agentctx_model::complete_prompt;
use agentctx_protocol::ResponseItem;
use chrono::DateTime;
use chrono::Utc;

use super::SessionMemoryError;
use super::item_id::HistoryItemId;
use super::storage::SessionMemoryMetadata;
use super::storage::SessionMemoryStore;
use crate::message_filter::cleanup_summary_tags;
use crate::message_filter::filter_for_summarization;
use crate::message_filter::is_valid_summary;

/// The system instructions of an extraction: the summary template, sections and all.
pub const EXTRACTION_INSTRUCTIONS: &str =
    include_str!("../../templates/session_memory_template.md");

/// The user message of an extraction; `{{conversation}}` and `{{current_summary}}` are filled in.
const UPDATE_REQUEST: &str = include_str!("../../templates/session_memory_update.md");
const CONVERSATION_SLOT: &str = "{{conversation}}";
const CURRENT_SUMMARY_SLOT: &str = "{{current_summary}}";

/// Tokens of one tool output shown to the extraction; the rest is cut in the middle. The
/// summary keeps what was decided, not whole file contents.
const TOOL_OUTPUT_TOKENS: usize = 2_000;

/// How many characters of an unusable reply the error keeps.
const REPLY_EXCERPT_CHARS: usize = 200;

/// What an extraction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtractionOutcome {
    /// The summary was rewritten.
    Updated {
        /// The metadata written with it.
        metadata: SessionMemoryMetadata,
        /// History items taken in by this extraction.
        new_items: usize,
    },
    /// Nothing the summary does not cover yet; no model call was made.
    NothingNew,
}

/// Runs one extraction over `history` (the session's items, oldest first) and rewrites the
/// session's `summary.md` and `metadata.json`. The items after `last_summarized_id` are
/// summarised; when that id is missing, unreadable or no longer found, the whole history is
/// (the current summary is still given, so nothing it holds is lost). On a model failure or an
/// unusable reply the files are left as they were.
pub async fn run_extraction<C>(
    client: &C,
    store: &SessionMemoryStore,
    history: &[ResponseItem],
    now: DateTime<Utc>,
) -> Result<ExtractionOutcome, SessionMemoryError>
where
    C: ModelClient + ?Sized,
{
    let current_summary = store.read_summary()?.unwrap_or_default();
    let (start, summarized_before) = summarized_prefix(store, history)?;
    let new_items = history.get(start..).unwrap_or_default();
    let Some(last_index) = history.len().checked_sub(1) else {
        return Ok(ExtractionOutcome::NothingNew);
    };
    let visible = filter_for_summarization(new_items);
    if visible.is_empty() {
        return Ok(ExtractionOutcome::NothingNew);
    }
    let prompt = extraction_prompt(&current_summary, &visible);
    let reply = complete_prompt(client, &prompt).await?;
    if !is_valid_summary(&reply) {
        return Err(SessionMemoryError::InvalidSummary {
            reply: reply.chars().take(REPLY_EXCERPT_CHARS).collect(),
        });
    }
    let mut summary = cleanup_summary_tags(&reply);
    summary.push('\n');
    let Some(last_id) = HistoryItemId::of(history, last_index) else {
        return Ok(ExtractionOutcome::NothingNew);
    };
    let metadata = SessionMemoryMetadata {
        last_summarized_id: last_id.to_string(),
        last_extraction: now,
        summary_token_count: approx_token_count(&summary),
        messages_summarized: summarized_before.saturating_add(new_items.len() as u64),
    };
    store.write(&summary, &metadata)?;
    Ok(ExtractionOutcome::Updated {
        metadata,
        new_items: new_items.len(),
    })
}

/// The request of an extraction: the template as instructions and one user message with the
/// new part of the conversation as a transcript and the current summary. The conversation is
/// sent as text rather than as items, so a tool output whose call was summarised earlier is
/// not an orphan the provider rejects, and no tool needs declaring.
pub fn extraction_prompt(current_summary: &str, new_items: &[ResponseItem]) -> Prompt<'static> {
    let conversation = transcript(new_items);
    let request = match UPDATE_REQUEST
        .split_once(CONVERSATION_SLOT)
        .and_then(|(before, rest)| {
            rest.split_once(CURRENT_SUMMARY_SLOT)
                .map(|(middle, after)| (before, middle, after))
        }) {
        Some((before, middle, after)) => {
            format!(
                "{before}{conversation}{middle}{}{after}",
                current_summary.trim()
            )
        }
        // The template is compiled in and its slots are tested; this only keeps a bad edit from
        // losing the conversation.
        None => format!(
            "{UPDATE_REQUEST}\n{conversation}\n{}",
            current_summary.trim()
        ),
    };
    Prompt::system_and_user(EXTRACTION_INSTRUCTIONS, request)
}

/// Where the items the summary does not cover start, and how many items it has taken in.
fn summarized_prefix(
    store: &SessionMemoryStore,
    history: &[ResponseItem],
) -> Result<(usize, u64), SessionMemoryError> {
    let metadata = match store.read_metadata() {
        Ok(Some(metadata)) => metadata,
        Ok(None) => return Ok((0, 0)),
        Err(SessionMemoryError::CorruptMetadata { path, source }) => {
            tracing::warn!(path = %path.display(), %source, "session-memory metadata is corrupt; summarising the whole history");
            return Ok((0, 0));
        }
        Err(error) => return Err(error),
    };
    let located = metadata
        .last_summarized_id
        .parse::<HistoryItemId>()
        .ok()
        .and_then(|id| id.locate(history));
    match located {
        Some(index) => Ok((index.saturating_add(1), metadata.messages_summarized)),
        None => {
            tracing::warn!(
                last_summarized_id = %metadata.last_summarized_id,
                "the last summarised item is not in the history; summarising the whole history"
            );
            Ok((0, metadata.messages_summarized))
        }
    }
}

/// One line (or block) per item: `[role] text`, `[tool call name] arguments`,
/// `[tool result] output`.
fn transcript(items: &[ResponseItem]) -> String {
    items
        .iter()
        .filter_map(|item| match item {
            ResponseItem::Message { role, .. } => item
                .message_text()
                .map(|text| format!("[{role}] {}", text.trim())),
            ResponseItem::FunctionCall {
                name, arguments, ..
            } => Some(format!("[tool call {name}] {arguments}")),
            ResponseItem::CustomToolCall { name, input, .. } => {
                Some(format!("[tool call {name}] {input}"))
            }
            ResponseItem::LocalShellCall { action, .. } => {
                Some(format!("[tool call local_shell] {action}"))
            }
            ResponseItem::FunctionCallOutput { output, .. }
            | ResponseItem::CustomToolCallOutput { output, .. } => Some(format!(
                "[tool result] {}",
                truncate_text(
                    output.text_content().trim(),
                    TruncationPolicy::Tokens(TOOL_OUTPUT_TOKENS)
                )
            )),
            ResponseItem::WebSearchCall { action, .. } => Some(format!(
                "[web search] {}",
                action.as_ref().map(ToString::to_string).unwrap_or_default()
            )),
            ResponseItem::Reasoning { .. }
            | ResponseItem::GhostSnapshot { .. }
            | ResponseItem::Compaction { .. }
            | ResponseItem::Other(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
#[path = "extraction_tests.rs"]
mod tests;
