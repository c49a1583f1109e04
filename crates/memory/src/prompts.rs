//! The model-visible texts of the pipeline, kept as templates in `templates/` and pinned by
//! snapshots: the stage-one system prompt and input, the consolidation prompt and the read-path
//! instructions injected into every session. See docs/design/memory.md, "Prompts".

use std::path::Path;

use agentctx_context::CalibratedTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_context::approx_token_count;
use agentctx_context::truncate_middle_with_token_budget;
use agentctx_protocol::ResponseItem;

use crate::error::MemoryError;
use crate::storage::MEMORY_SUMMARY_FILE;
use crate::storage::memory_root;
use crate::storage::read_optional;

/// The stage-one system prompt (no-op gate, evidence rules, output format).
pub const STAGE_ONE_SYSTEM: &str = include_str!("../templates/stage_one_system.md");
/// The stage-one user message (`rollout_path`, `rollout_cwd`, `rollout_contents`).
pub const STAGE_ONE_INPUT: &str = include_str!("../templates/stage_one_input.md");
/// The consolidation prompt (`memory_root`, `mode`, `new_raw_memories`, `current_memory`,
/// `current_summary`).
pub const CONSOLIDATION: &str = include_str!("../templates/consolidation.md");
/// The read-path instructions (`base_path`, `memory_summary`).
pub const READ_PATH: &str = include_str!("../templates/read_path.md");

/// The most of `memory_summary.md` injected into developer instructions, in tokens.
pub const MEMORY_SUMMARY_TOKEN_LIMIT: usize = 5_000;
/// Rollout budget when the model's window is unknown, in tokens.
pub const DEFAULT_STAGE_ONE_ROLLOUT_TOKEN_LIMIT: usize = 150_000;
/// Share of the model's context window the rollout may take, in percent.
pub const CONTEXT_WINDOW_PERCENT: i64 = 70;

/// Fills `{{ name }}` placeholders in one pass: a value that itself contains `{{ other }}` is
/// never expanded again. Unknown placeholders are left as they are.
pub(crate) fn render(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let (before, after) = rest.split_at(start);
        out.push_str(before);
        let Some(end) = after.find("}}") else {
            out.push_str(after);
            return out;
        };
        let name = after.get(2..end).unwrap_or_default().trim();
        match values.iter().find(|(key, _)| *key == name) {
            Some((_, value)) => out.push_str(value),
            None => out.push_str(after.get(..end + 2).unwrap_or_default()),
        }
        rest = after.get(end + 2..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// True for the items memory learns from: messages of the user and the assistant (not the
/// harness's developer or system messages), tool calls and their outputs, and web searches.
/// Reasoning, ghost snapshots and compaction items are left out.
pub fn keep_for_memory(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::Message { role, .. } => role != "developer" && role != "system",
        ResponseItem::LocalShellCall { .. }
        | ResponseItem::FunctionCall { .. }
        | ResponseItem::FunctionCallOutput { .. }
        | ResponseItem::CustomToolCall { .. }
        | ResponseItem::CustomToolCallOutput { .. }
        | ResponseItem::WebSearchCall { .. } => true,
        ResponseItem::Reasoning { .. }
        | ResponseItem::GhostSnapshot { .. }
        | ResponseItem::Compaction { .. }
        | ResponseItem::Other(_) => false,
    }
}

/// The stage-one user message: the kept items as a JSON array, middle-truncated until the
/// calibrated estimator counts at most `token_budget` tokens (see
/// [`crate::stage_one_token_budget`]).
pub fn stage_one_input(
    rollout_path: &Path,
    rollout_cwd: Option<&str>,
    items: &[ResponseItem],
    token_budget: usize,
) -> String {
    let kept: Vec<&ResponseItem> = items.iter().filter(|item| keep_for_memory(item)).collect();
    let contents = serde_json::to_string(&kept).unwrap_or_else(|_| "[]".to_string());
    let contents = truncate_to_estimated_tokens(&contents, token_budget);
    let path = rollout_path.display().to_string();
    render(
        STAGE_ONE_INPUT,
        &[
            ("rollout_path", &path),
            ("rollout_cwd", rollout_cwd.unwrap_or("unknown")),
            ("rollout_contents", &contents),
        ],
    )
}

/// Rounds of [`truncate_to_estimated_tokens`] before it settles for what it has.
const TRUNCATION_ROUNDS: usize = 8;

/// `text` middle-truncated until [`CalibratedTokenEstimator`] counts at most `budget` tokens.
///
/// The cut itself counts four bytes a token ([`truncate_middle_with_token_budget`]), so its
/// budget is scaled by the text's own bytes per estimated token, then tightened while the kept
/// part (denser or lighter than the whole) still counts too many.
pub(crate) fn truncate_to_estimated_tokens(text: &str, budget: usize) -> String {
    let estimator = CalibratedTokenEstimator;
    let budget = budget as u64;
    let estimate = estimator.estimate_text(text);
    if estimate <= budget {
        return text.to_string();
    }
    let scale = |tokens: u64, numerator: u64, denominator: u64| {
        usize::try_from(tokens.saturating_mul(numerator) / denominator.max(1)).unwrap_or(usize::MAX)
    };
    let mut cut_budget = scale(budget, approx_token_count(text), estimate);
    let mut cut = String::new();
    for _ in 0..TRUNCATION_ROUNDS {
        (cut, _) = truncate_middle_with_token_budget(text, cut_budget);
        let cut_estimate = estimator.estimate_text(&cut);
        if cut_estimate <= budget {
            break;
        }
        // 5% under the proportional cut, so that each round gains.
        cut_budget = scale(cut_budget as u64, budget * 95, cut_estimate * 100);
    }
    cut
}

/// The read-path instructions with `memory_summary.md` (trimmed, truncated to
/// [`MEMORY_SUMMARY_TOKEN_LIMIT`] tokens) for developer instructions; `None` when there is no
/// summary or it is blank.
pub fn memory_instructions(home: &Path) -> Result<Option<String>, MemoryError> {
    let root = memory_root(home);
    let Some(summary) = read_optional(&root.join(MEMORY_SUMMARY_FILE))? else {
        return Ok(None);
    };
    Ok(memory_instructions_for(&root, &summary))
}

/// [`memory_instructions`] for a summary text already read.
pub fn memory_instructions_for(memory_root: &Path, summary: &str) -> Option<String> {
    let summary = summary.trim();
    if summary.is_empty() {
        return None;
    }
    let (summary, _) = truncate_middle_with_token_budget(summary, MEMORY_SUMMARY_TOKEN_LIMIT);
    let base_path = memory_root.display().to_string();
    Some(render(
        READ_PATH,
        &[("base_path", &base_path), ("memory_summary", &summary)],
    ))
}

#[cfg(test)]
#[path = "prompts_tests.rs"]
mod tests;
