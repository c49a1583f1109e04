//! Iteration summaries and commit messages through `agentctx-model`, with deterministic
//! fallbacks when the model fails. The history is filtered and the answer validated with the
//! compaction crate's rules, so both summarisers see and accept the same things. The prompts are
//! quoted in docs/design/loop-driver.md, "Summaries and commit messages".

use std::sync::Arc;

use agentctx_compact::cleanup_summary_tags;
use agentctx_compact::filter_for_summarization;
use agentctx_compact::is_valid_summary;
use agentctx_compact::summarize_offline;
use agentctx_context::approx_token_count;
use agentctx_context::truncate_middle_with_token_budget;
use agentctx_model::ModelClient;
use agentctx_protocol::ResponseItem;

use crate::prompt::fill;

/// The system prompt of an iteration summary.
pub const ITERATION_SUMMARY_SYSTEM_PROMPT: &str = "You are a concise technical summarizer.
Your task is to summarize an AI agent's work in a single iteration.
Be factual and brief. Focus on what was actually done, not what was planned.";

/// The user prompt of an iteration summary; `{messages}` is the filtered history.
pub const ITERATION_SUMMARY_USER_PROMPT: &str = "Summarize this agent iteration in 3-5 sentences:

1. What task was attempted
2. What was accomplished (files created/modified, features implemented)
3. Key decisions made or blockers encountered

This summary will be passed to the next iteration for context continuity.
Output ONLY the summary text, no explanations or formatting.

Agent conversation to summarize:
{messages}";

/// The system prompt of a commit message.
pub const COMMIT_MSG_SYSTEM_PROMPT: &str = "You are a git commit message generator.
Generate clear, conventional commit messages following this format:
- First line: [iter-N] Brief description (max 50 chars)
- Blank line
- Body: What was done (2-3 lines max)

Output ONLY the commit message, nothing else.";

/// The user prompt of a commit message.
pub const COMMIT_MSG_USER_PROMPT: &str = "Generate a git commit message for this iteration.

Iteration: {iteration}
Task (truncated): {task}
Changed files: {files}
Summary: {summary}

Output ONLY the commit message.";

/// The summary of an iteration whose history holds nothing to summarise.
pub const EMPTY_ITERATION_SUMMARY: &str = "No significant actions in this iteration.";

/// The filtered history sent to the summariser is cut after this many tokens.
pub(crate) const MAX_SUMMARY_INPUT_TOKENS: u64 = 4_000;
/// What replaces the rest of a history that is too long.
pub(crate) const TRUNCATED_MARKER: &str = "[... truncated for length ...]";
/// The task is cut to this many characters in the commit-message prompt.
const MAX_TASK_CHARS: usize = 200;
/// At most this many files are listed in the commit-message prompt.
const MAX_PROMPT_FILES: usize = 10;
/// A tool call's arguments are cut to this many characters.
const MAX_ARGUMENT_CHARS: usize = 200;
/// A tool result is cut to this many characters.
const MAX_RESULT_CHARS: usize = 500;

/// Where a summary or commit message came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextSource {
    /// The model wrote it.
    Model,
    /// Built without a model, for this reason.
    Fallback(String),
}

/// A summary or a commit message, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedText {
    /// The text.
    pub text: String,
    /// Its source.
    pub source: TextSource,
}

/// Writes iteration summaries and commit messages.
#[derive(Clone)]
pub struct Summariser {
    model: Arc<dyn ModelClient>,
    commit_model: Option<Arc<dyn ModelClient>>,
    use_model: bool,
    max_summary_tokens: usize,
}

impl std::fmt::Debug for Summariser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Summariser")
            .field("model", &self.model.slug())
            .field(
                "commit_model",
                &self.commit_model.as_ref().map(|m| m.slug()),
            )
            .field("use_model", &self.use_model)
            .field("max_summary_tokens", &self.max_summary_tokens)
            .finish()
    }
}

impl Summariser {
    /// Summaries and commit messages through `model`; summaries cut to `max_summary_tokens`.
    pub fn new(model: Arc<dyn ModelClient>, max_summary_tokens: usize) -> Self {
        Self {
            model,
            commit_model: None,
            use_model: true,
            max_summary_tokens,
        }
    }

    /// Commit messages through `model` instead.
    pub fn with_commit_message_model(mut self, model: Arc<dyn ModelClient>) -> Self {
        self.commit_model = Some(model);
        self
    }

    /// With `false`, summaries are always built from the history without a model
    /// (`generate_summary = false`); commit messages still use the model.
    pub fn with_model_summaries(mut self, use_model: bool) -> Self {
        self.use_model = use_model;
        self
    }

    /// The summary of an iteration from its history: filtered, sent to the model, validated and
    /// cleaned. When the history holds nothing, [`EMPTY_ITERATION_SUMMARY`] without a model
    /// call; when the model fails or answers something that is not a summary, a deterministic
    /// summary built from the history.
    pub async fn summarize_iteration(&self, history: &[ResponseItem]) -> GeneratedText {
        let filtered = filter_for_summarization(history);
        if filtered.is_empty() {
            return GeneratedText {
                text: EMPTY_ITERATION_SUMMARY.to_owned(),
                source: TextSource::Fallback("the iteration's history is empty".to_owned()),
            };
        }
        if !self.use_model {
            return self.fallback_summary(&filtered, "model summaries are off");
        }
        let user = fill(
            ITERATION_SUMMARY_USER_PROMPT,
            &[("messages", &format_messages_for_summary(&filtered))],
        );
        match self
            .model
            .complete(ITERATION_SUMMARY_SYSTEM_PROMPT, &user)
            .await
        {
            Ok(answer) if is_valid_summary(&answer) => {
                let cleaned = cleanup_summary_tags(&answer);
                let (text, _) =
                    truncate_middle_with_token_budget(&cleaned, self.max_summary_tokens);
                GeneratedText {
                    text,
                    source: TextSource::Model,
                }
            }
            Ok(answer) => {
                tracing::warn!(answer = %answer, "the iteration summary is not a summary; using the fallback");
                self.fallback_summary(&filtered, "the model's answer was not a valid summary")
            }
            Err(error) => {
                tracing::warn!(%error, "the iteration summary failed; using the fallback");
                self.fallback_summary(&filtered, &format!("the model failed: {error}"))
            }
        }
    }

    /// A summary built from the history alone, for when no model may or can be used.
    pub fn summarize_without_model(&self, history: &[ResponseItem]) -> GeneratedText {
        let filtered = filter_for_summarization(history);
        if filtered.is_empty() {
            return GeneratedText {
                text: EMPTY_ITERATION_SUMMARY.to_owned(),
                source: TextSource::Fallback("the iteration's history is empty".to_owned()),
            };
        }
        self.fallback_summary(&filtered, "no model call was made")
    }

    /// The commit message of iteration `iteration`; the fallback
    /// `[iter-N] Iteration N changes` with the summary as body when the model fails or answers
    /// nothing.
    pub async fn commit_message(
        &self,
        iteration: i32,
        task: &str,
        files: &[String],
        summary: &str,
    ) -> GeneratedText {
        let user = fill(
            COMMIT_MSG_USER_PROMPT,
            &[
                ("iteration", &iteration.to_string()),
                ("task", &truncate_chars(task, MAX_TASK_CHARS)),
                ("files", &list_files(files)),
                ("summary", summary),
            ],
        );
        let model = self.commit_model.as_ref().unwrap_or(&self.model);
        match model.complete(COMMIT_MSG_SYSTEM_PROMPT, &user).await {
            Ok(answer) if !strip_fences(&answer).is_empty() => GeneratedText {
                text: strip_fences(&answer),
                source: TextSource::Model,
            },
            Ok(_) => GeneratedText {
                text: fallback_commit_message(iteration, summary),
                source: TextSource::Fallback("the model's answer was empty".to_owned()),
            },
            Err(error) => {
                tracing::warn!(%error, "the commit message failed; using the fallback");
                GeneratedText {
                    text: fallback_commit_message(iteration, summary),
                    source: TextSource::Fallback(format!("the model failed: {error}")),
                }
            }
        }
    }

    fn fallback_summary(&self, filtered: &[ResponseItem], reason: &str) -> GeneratedText {
        GeneratedText {
            text: summarize_offline(filtered, self.max_summary_tokens),
            source: TextSource::Fallback(reason.to_owned()),
        }
    }
}

/// The commit message used when the model cannot write one.
pub fn fallback_commit_message(iteration: i32, summary: &str) -> String {
    format!("[iter-{iteration}] Iteration {iteration} changes\n\n{summary}")
}

/// The filtered history as the summariser reads it: `[role]: text`, `[tool_use]: name - args`,
/// `[tool_result]: output`, separated by blank lines, cut after [`MAX_SUMMARY_INPUT_TOKENS`].
pub(crate) fn format_messages_for_summary(items: &[ResponseItem]) -> String {
    let mut parts = Vec::new();
    let mut tokens = 0;
    for text in items.iter().filter_map(format_single_message) {
        let size = approx_token_count(&text);
        if tokens + size > MAX_SUMMARY_INPUT_TOKENS {
            parts.push(TRUNCATED_MARKER.to_owned());
            break;
        }
        tokens += size;
        parts.push(text);
    }
    parts.join("\n\n")
}

fn format_single_message(item: &ResponseItem) -> Option<String> {
    match item {
        ResponseItem::Message { role, .. } => Some(format!(
            "[{role}]: {}",
            item.message_text().unwrap_or_default()
        )),
        ResponseItem::FunctionCall {
            name, arguments, ..
        } => Some(format!(
            "[tool_use]: {name} - {}",
            truncate_chars(arguments, MAX_ARGUMENT_CHARS)
        )),
        ResponseItem::CustomToolCall { name, input, .. } => Some(format!(
            "[tool_use]: {name} - {}",
            truncate_chars(input, MAX_ARGUMENT_CHARS)
        )),
        ResponseItem::LocalShellCall { action, .. } => Some(format!(
            "[tool_use]: shell - {}",
            truncate_chars(&action.to_string(), MAX_ARGUMENT_CHARS)
        )),
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => Some(format!(
            "[tool_result]: {}",
            truncate_chars(&output.text_content(), MAX_RESULT_CHARS)
        )),
        ResponseItem::Reasoning { .. }
        | ResponseItem::WebSearchCall { .. }
        | ResponseItem::GhostSnapshot { .. }
        | ResponseItem::Compaction { .. }
        | ResponseItem::Other(_) => None,
    }
}

/// `text` cut to `max` characters (never inside a character) with `...` after a cut.
pub(crate) fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}...", text.get(..at).unwrap_or(text)),
        None => text.to_owned(),
    }
}

fn list_files(files: &[String]) -> String {
    let listed = files
        .iter()
        .take(MAX_PROMPT_FILES)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    match files.len().checked_sub(MAX_PROMPT_FILES) {
        Some(more) if more > 0 => format!("{listed}, ... ({more} more)"),
        _ => listed,
    }
}

/// The answer without a Markdown code fence around it (models add one despite being told not
/// to, and git would keep the backticks), trimmed.
fn strip_fences(answer: &str) -> String {
    let trimmed = answer.trim();
    let Some(inner) = trimmed
        .strip_prefix("```")
        .and_then(|rest| rest.strip_suffix("```"))
    else {
        return trimmed.to_owned();
    };
    // Drop the info string (`text`, `git`) on the opening line.
    let body = inner.split_once('\n').map_or("", |(_, body)| body);
    body.trim().to_owned()
}

#[cfg(test)]
#[path = "summariser_tests.rs"]
mod tests;
