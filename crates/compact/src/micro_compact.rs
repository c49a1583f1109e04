//! Micro-compaction: before every model request, old results of compactable tools are cleared
//! from the history without a model call, the large ones kept on disk first (see
//! docs/design/compaction.md, "Micro-compaction").
//!
//! The decision ([`plan_micro_compact`]) reads the history only; [`apply_micro_compact`] writes
//! the files and then replaces the items. Both are deterministic: the same history, settings
//! and home give the same bytes, so the provider's prompt cache is not churned by a re-run.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;

use agentctx_context::ItemSize;
use agentctx_context::TokenEstimator;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use serde_json::Value;

use crate::config::CompactConfig;
use crate::config::MicroCompactConfig;
use crate::persisted_output::CLEARED_TOOL_RESULT_TEXT;
use crate::persisted_output::is_cleared_output;
use crate::persisted_output::persist_output;
use crate::persisted_output::persisted_output_marker;
use crate::persisted_output::persisted_output_path;
use crate::thrash_guard::CompactionMode;

/// The kinds of tool whose results micro-compaction may clear.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompactableTool {
    /// File reads (`Read`; codex `read_file`).
    Read,
    /// Shell commands (`Bash`; codex `shell`, `shell_command`, `local_shell`, `exec_command`, …)
    /// and codex code-mode cells (`exec`, `wait`), which run commands through nested tools.
    Bash,
    /// Content search (`Grep`; codex `grep_files`).
    Grep,
    /// File listings (`Glob`, `LS`; codex `list_dir`).
    Glob,
    /// Web search (`WebSearch`; codex `web_search`).
    WebSearch,
    /// Web fetch (`WebFetch`).
    WebFetch,
    /// Edits (`Edit`, `MultiEdit`, `NotebookEdit`; codex `apply_patch`): counted, never cleared.
    Edit,
    /// Whole-file writes (`Write`): counted, never cleared.
    Write,
}

impl CompactableTool {
    /// The kind of the tool called `name` (Claude Code and Codex names), `None` when its
    /// results are never compacted (MCP tools, todo and plan tools, …).
    pub fn from_tool_name(name: &str) -> Option<Self> {
        Some(match name {
            "Read" | "NotebookRead" | "read_file" => Self::Read,
            "Bash" | "BashOutput" | "shell" | "shell_command" | "local_shell"
            | "container.exec" | "exec_command" | "write_stdin" => Self::Bash,
            // Codex code mode (0.12x+): `exec` is a freeform tool whose input is JavaScript that
            // calls the other tools (`await tools.exec_command({cmd: …})`), recorded as a
            // `custom_tool_call` named `exec` and answered by a `custom_tool_call_output` led by
            // `Script completed` / `Script failed` / `Script running with cell ID N`; `wait`
            // resumes a running cell, as `write_stdin` resumes an `exec_command` session.
            // codex-rs `code-mode/src/lib.rs` (`PUBLIC_TOOL_NAME = "exec"`, `WAIT_TOOL_NAME =
            // "wait"`), `core/src/tools/code_mode/execute_spec.rs` (the freeform grammar: an
            // optional `// @exec: {…}` pragma line, then the source) and
            // `core/src/tools/code_mode/mod.rs` (`prepend_script_status`);
            // `core/src/tools/code_mode/wait_spec.rs` (`wait` takes the `cell_id`).
            "exec" | "wait" => Self::Bash,
            "Grep" | "grep_files" => Self::Grep,
            "Glob" | "LS" | "list_dir" => Self::Glob,
            "WebSearch" | "web_search" => Self::WebSearch,
            "WebFetch" => Self::WebFetch,
            "Edit" | "MultiEdit" | "NotebookEdit" | "apply_patch" => Self::Edit,
            "Write" => Self::Write,
            _ => return None,
        })
    }

    /// Edit and write results are short confirmations the model relies on to know what it
    /// changed; they are never cleared.
    fn is_protected(self) -> bool {
        matches!(self, Self::Edit | Self::Write)
    }
}

/// One result micro-compaction will clear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedClear {
    /// Index of the output item in the history.
    pub index: usize,
    /// Its call id.
    pub call_id: String,
    /// Where its text is written first, for results over the persist threshold.
    pub persist_to: Option<PathBuf>,
    /// The text that replaces it.
    pub replacement: String,
    /// Tokens saved (the item's estimate before minus after).
    pub tokens_saved: u64,
}

/// What micro-compaction would do to a history.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MicroCompactPlan {
    /// Results to clear, in clearing order (superseded first, then oldest first).
    pub clears: Vec<PlannedClear>,
    /// Tokens all of them save together.
    pub tokens_saved: u64,
    /// Whether the plan is worth applying: it saves the configured least amount (any amount in
    /// aggressive mode).
    pub worthwhile: bool,
}

/// What an applied micro-compaction did. The core turns it into
/// [`LoopEvent::MicroCompactionApplied`] and the reminder engine's micro-compact notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MicroCompactOutcome {
    /// Tokens saved.
    pub tokens_saved: u64,
    /// Call ids of the cleared results, in history order.
    pub cleared_call_ids: Vec<String>,
    /// Files written, in history order.
    pub persisted_paths: Vec<PathBuf>,
}

impl MicroCompactOutcome {
    /// How many results were cleared.
    pub fn cleared_count(&self) -> usize {
        self.cleared_call_ids.len()
    }

    /// The loop event announcing it.
    pub fn loop_event(&self) -> LoopEvent {
        LoopEvent::MicroCompactionApplied {
            removed_results: i32::try_from(self.cleared_count()).unwrap_or(i32::MAX),
        }
    }
}

/// Why micro-compaction left the history alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MicroCompactSkip {
    /// Switched off (`micro_compact` or the master switch).
    Disabled,
    /// No result may be cleared.
    NothingToClear,
    /// Clearing would save less than the configured least amount.
    BelowMinimumSavings {
        /// What it would have saved.
        would_save: u64,
    },
}

/// The result of [`micro_compact`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MicroCompactResult {
    /// The history was changed.
    Applied(MicroCompactOutcome),
    /// The history was left untouched.
    Skipped(MicroCompactSkip),
}

/// Micro-compaction could not write a result to disk; the history was left untouched.
#[derive(Debug, thiserror::Error)]
#[error("could not persist the result of tool call {call_id} to {}: {source}", path.display())]
pub struct MicroCompactError {
    /// The call whose result could not be written.
    pub call_id: String,
    /// The file.
    pub path: PathBuf,
    /// The I/O error.
    #[source]
    pub source: std::io::Error,
}

/// Runs micro-compaction on `history` under `config`: plans, and applies when worthwhile.
/// Results are persisted under `home` (`<home>/tool-results/`).
pub fn micro_compact(
    history: &mut [ResponseItem],
    config: &CompactConfig,
    mode: CompactionMode,
    home: &Path,
    estimator: &dyn TokenEstimator,
) -> Result<MicroCompactResult, MicroCompactError> {
    if !config.micro_compact_enabled() {
        return Ok(MicroCompactResult::Skipped(MicroCompactSkip::Disabled));
    }
    let plan = plan_micro_compact(history, &config.micro, mode, home, estimator);
    if plan.clears.is_empty() {
        return Ok(MicroCompactResult::Skipped(
            MicroCompactSkip::NothingToClear,
        ));
    }
    if !plan.worthwhile {
        return Ok(MicroCompactResult::Skipped(
            MicroCompactSkip::BelowMinimumSavings {
                would_save: plan.tokens_saved,
            },
        ));
    }
    apply_micro_compact(history, &plan).map(MicroCompactResult::Applied)
}

/// Decides what micro-compaction would clear, without touching the history or the disk.
pub fn plan_micro_compact(
    history: &[ResponseItem],
    config: &MicroCompactConfig,
    mode: CompactionMode,
    home: &Path,
    estimator: &dyn TokenEstimator,
) -> MicroCompactPlan {
    plan_micro_compact_sized(history, &[], config, mode, home, estimator)
}

/// [`plan_micro_compact`] with the sizes of the items already known: `sizes[i]` is the size of
/// `history[i]` under `estimator` (what `ContextManager::item_sizes` keeps, measured once when
/// each item entered). Results are then not measured again, which is most of the decision's
/// cost on a long history (see docs/design/performance.md, "Per-turn pipeline"). An item
/// without a size (`sizes` shorter than `history`) is measured.
pub fn plan_micro_compact_sized(
    history: &[ResponseItem],
    sizes: &[ItemSize],
    config: &MicroCompactConfig,
    mode: CompactionMode,
    home: &Path,
    estimator: &dyn TokenEstimator,
) -> MicroCompactPlan {
    plan(
        history,
        sizes,
        config,
        mode,
        home,
        estimator,
        Planning::Whole,
    )
}

/// Whether micro-compaction is worth applying to `history` now, decided without planning every
/// clear: the candidates are walked in clearing order and the walk stops as soon as the
/// savings reach the configured least amount (any saving in aggressive mode). It gives the same
/// answer as [`plan_micro_compact_sized`]'s `worthwhile`, because the savings only grow along
/// the walk. Before every model request this is the whole cost of micro-compaction; the plan
/// is built only when the answer is yes (see docs/design/performance.md, "Per-turn pipeline").
pub fn decide_micro_compact(
    history: &[ResponseItem],
    sizes: &[ItemSize],
    config: &MicroCompactConfig,
    mode: CompactionMode,
    home: &Path,
    estimator: &dyn TokenEstimator,
) -> MicroCompactDecision {
    let partial = plan(
        history,
        sizes,
        config,
        mode,
        home,
        estimator,
        Planning::UntilWorthwhile,
    );
    MicroCompactDecision {
        worthwhile: partial.worthwhile,
        planned_clears: partial.clears.len(),
        tokens_saved: partial.tokens_saved,
    }
}

/// The answer of [`decide_micro_compact`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MicroCompactDecision {
    /// Whether the whole plan would be worth applying (its `worthwhile`).
    pub worthwhile: bool,
    /// Clears looked at before the answer was known: all of them when it is no, the first
    /// few when it is yes.
    pub planned_clears: usize,
    /// What those clears save: the whole plan's saving when the answer is no, a lower bound of
    /// it when the answer is yes.
    pub tokens_saved: u64,
}

/// How much of the plan [`plan`] builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Planning {
    /// Every clear.
    Whole,
    /// Clears until the plan is worthwhile.
    UntilWorthwhile,
}

fn plan(
    history: &[ResponseItem],
    sizes: &[ItemSize],
    config: &MicroCompactConfig,
    mode: CompactionMode,
    home: &Path,
    estimator: &dyn TokenEstimator,
    planning: Planning,
) -> MicroCompactPlan {
    let results = collect_compactable_results(history, sizes, estimator);
    plan_results(history, &results, config, mode, home, estimator, planning)
}

/// The plan over `results`, the compactable results of `history` in history order.
pub(crate) fn plan_results(
    history: &[ResponseItem],
    results: &[CompactableResult<'_>],
    config: &MicroCompactConfig,
    mode: CompactionMode,
    home: &Path,
    estimator: &dyn TokenEstimator,
    planning: Planning,
) -> MicroCompactPlan {
    let keep_from = results.len().saturating_sub(config.keep_recent_results);

    let mut superseded = Vec::new();
    let mut others = Vec::new();
    for (position, result) in results.iter().enumerate() {
        if !result.is_clearable(position < keep_from) {
            continue;
        }
        if result.goes_first() {
            superseded.push(result);
        } else {
            others.push(result);
        }
    }

    let mut remaining: u64 = results
        .iter()
        .filter(|result| !result.cleared)
        .map(|result| result.tokens)
        .sum();
    let mut clears = Vec::new();
    let mut tokens_saved: u64 = 0;
    for result in superseded.into_iter().chain(others) {
        if mode == CompactionMode::Normal && remaining <= config.target_tool_result_tokens {
            break;
        }
        let Some(item) = history.get(result.index) else {
            continue;
        };
        let planned = plan_clear(item, result, config, home, estimator);
        if planned.tokens_saved == 0 {
            // The replacement is as large as the result: clearing would only lose content.
            continue;
        }
        remaining = remaining.saturating_sub(result.tokens);
        tokens_saved = tokens_saved.saturating_add(planned.tokens_saved);
        clears.push(planned);
        if planning == Planning::UntilWorthwhile && is_worthwhile(mode, tokens_saved, config) {
            break;
        }
    }
    let worthwhile = is_worthwhile(mode, tokens_saved, config);
    MicroCompactPlan {
        clears,
        tokens_saved,
        worthwhile,
    }
}

/// Whether clears saving `tokens_saved` are worth applying in `mode`.
pub(crate) fn is_worthwhile(
    mode: CompactionMode,
    tokens_saved: u64,
    config: &MicroCompactConfig,
) -> bool {
    match mode {
        CompactionMode::Normal => tokens_saved >= config.min_savings_tokens,
        CompactionMode::Aggressive => tokens_saved > 0,
    }
}

/// Writes the planned files, then replaces the planned items. When a file cannot be written
/// the history is left untouched.
pub fn apply_micro_compact(
    history: &mut [ResponseItem],
    plan: &MicroCompactPlan,
) -> Result<MicroCompactOutcome, MicroCompactError> {
    let mut ordered: Vec<&PlannedClear> = plan.clears.iter().collect();
    ordered.sort_by_key(|clear| clear.index);

    let mut persisted_paths = Vec::new();
    for clear in &ordered {
        let (Some(path), Some(item)) = (&clear.persist_to, history.get(clear.index)) else {
            continue;
        };
        let text = output_text(item).unwrap_or_default();
        persist_output(path, &text).map_err(|source| MicroCompactError {
            call_id: clear.call_id.clone(),
            path: path.clone(),
            source,
        })?;
        persisted_paths.push(path.clone());
    }

    let mut cleared_call_ids = Vec::new();
    for clear in ordered {
        if let Some(item) = history.get_mut(clear.index)
            && replace_output(item, &clear.replacement)
        {
            cleared_call_ids.push(clear.call_id.clone());
        }
    }
    Ok(MicroCompactOutcome {
        tokens_saved: plan.tokens_saved,
        cleared_call_ids,
        persisted_paths,
    })
}

/// One result of a compactable tool.
pub(crate) struct CompactableResult<'a> {
    pub(crate) index: usize,
    pub(crate) call_id: &'a str,
    pub(crate) tool: CompactableTool,
    /// What a later result must share to supersede this one: the path of a read, the arguments
    /// of anything else.
    pub(crate) key: Option<&'a str>,
    pub(crate) tokens: u64,
    pub(crate) cleared: bool,
    pub(crate) is_error: bool,
    /// A later result of the same tool has the same key.
    pub(crate) superseded: bool,
}

impl CompactableResult<'_> {
    /// Whether micro-compaction may clear this result: old enough (`before_kept`: it is not one
    /// of the `keep_recent_results` newest results), not cleared yet, not an error, not an
    /// edit's or write's confirmation, and not the latest read of its file. Where the user's
    /// last message stands does not matter: in agentic work one prompt drives the whole
    /// session, and results of its first requests are as stale as those of an earlier turn.
    pub(crate) fn is_clearable(&self, before_kept: bool) -> bool {
        let is_latest_read =
            self.tool == CompactableTool::Read && self.key.is_some() && !self.superseded;
        before_kept
            && !self.cleared
            && !self.is_error
            && !self.tool.is_protected()
            && !is_latest_read
    }

    /// Whether the result is cleared in the first round: a later result of the same key
    /// superseded it.
    pub(crate) fn goes_first(&self) -> bool {
        self.key.is_some() && self.superseded
    }
}

/// The results of compactable tools in history order.
fn collect_compactable_results<'a>(
    history: &'a [ResponseItem],
    sizes: &[ItemSize],
    estimator: &dyn TokenEstimator,
) -> Vec<CompactableResult<'a>> {
    let mut calls: HashMap<&str, (CompactableTool, Option<&str>)> = HashMap::new();
    let mut results = Vec::new();
    for (index, item) in history.iter().enumerate() {
        match item {
            ResponseItem::FunctionCall {
                name,
                arguments,
                call_id,
                ..
            } => {
                if let Some(tool) = CompactableTool::from_tool_name(name) {
                    calls.insert(call_id, (tool, Some(arguments.as_str())));
                }
            }
            ResponseItem::CustomToolCall {
                name,
                input,
                call_id,
                ..
            } => {
                if let Some(tool) = CompactableTool::from_tool_name(name) {
                    calls.insert(call_id, (tool, Some(input.as_str())));
                }
            }
            ResponseItem::LocalShellCall {
                call_id: Some(call_id),
                ..
            } => {
                calls.insert(call_id, (CompactableTool::Bash, None));
            }
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            }
            | ResponseItem::CustomToolCallOutput {
                call_id, output, ..
            } => {
                let Some((tool, arguments)) = calls.get(call_id.as_str()).copied() else {
                    continue;
                };
                let text = output_body_text(output);
                results.push(CompactableResult {
                    index,
                    call_id,
                    tool,
                    key: arguments.map(|arguments| supersede_key(tool, arguments)),
                    tokens: sizes
                        .get(index)
                        .map_or_else(|| estimator.estimate_item(item), |size| size.tokens),
                    cleared: is_cleared_output(&text),
                    is_error: is_error_output(output, &text),
                    superseded: false,
                });
            }
            _ => {}
        }
    }
    // The newest result of each key supersedes the earlier ones.
    let mut latest_by_key: HashMap<(CompactableTool, &str), usize> = HashMap::new();
    for position in 0..results.len() {
        let Some(result) = results.get(position) else {
            continue;
        };
        let Some(key) = result.key else {
            continue;
        };
        if let Some(earlier) = latest_by_key.insert((result.tool, key), position)
            && let Some(earlier) = results.get_mut(earlier)
        {
            earlier.superseded = true;
        }
    }
    results
}

/// The path of a read (`file_path`, or `path`), else the arguments as written.
pub(crate) fn supersede_key(tool: CompactableTool, arguments: &str) -> &str {
    if tool == CompactableTool::Read
        && let Some(path) = read_path(arguments)
    {
        return path;
    }
    arguments.trim()
}

/// The `"file_path"` (or `"path"`) string of a read's arguments, borrowed from them. Reads
/// whose path holds JSON escapes are keyed by their whole arguments instead.
fn read_path(arguments: &str) -> Option<&str> {
    /// The two path fields, borrowed: a path with an escape does not borrow and fails the
    /// whole parse, so such reads fall back to their arguments as the doc says. No tree is
    /// built (this runs for every read in the history before every request).
    #[derive(serde::Deserialize)]
    struct ReadArguments<'a> {
        #[serde(borrow, default)]
        file_path: Option<&'a str>,
        #[serde(borrow, default)]
        path: Option<&'a str>,
    }
    let parsed: ReadArguments<'_> = serde_json::from_str(arguments).ok()?;
    parsed.file_path.or(parsed.path)
}

/// The text of an output, borrowed when it is a plain string (the common case, and the one
/// the benchmark's million tokens go through).
pub(crate) fn output_body_text(output: &FunctionCallOutputPayload) -> Cow<'_, str> {
    match &output.body {
        FunctionCallOutputBody::Text(text) => Cow::Borrowed(text),
        FunctionCallOutputBody::ContentItems(_) | FunctionCallOutputBody::Other(_) => {
            Cow::Owned(output.text_content())
        }
    }
}

/// Whether an output reports a failure: the harness said so, the command exited non-zero
/// (codex's `Exit code: N` header, or its older `metadata.exit_code`), a codex code-mode script
/// failed (its `Script failed` status line: the rollout does not record the success flag), or
/// the tool reported an error (Claude Code's `<tool_use_error>`).
pub(crate) fn is_error_output(output: &FunctionCallOutputPayload, text: &str) -> bool {
    if output.success == Some(false) {
        return true;
    }
    if text.trim_start().starts_with("<tool_use_error>") {
        return true;
    }
    if text.starts_with(SCRIPT_FAILED_HEADER) {
        return true;
    }
    if let Some(rest) = text.strip_prefix("Exit code: ") {
        let code = rest.lines().next().unwrap_or_default().trim();
        return code != "0";
    }
    if text.starts_with('{')
        && let Ok(value) = serde_json::from_str::<Value>(text)
        && let Some(code) = value.pointer("/metadata/exit_code").and_then(Value::as_i64)
    {
        return code != 0;
    }
    false
}

/// How a failed codex code-mode script's output starts: its status line, then the wall time
/// (codex-rs `core/src/tools/code_mode/mod.rs`, `format_script_status` and
/// `prepend_script_status`: `"{status}\nWall time {seconds:.1} seconds\nOutput:\n"`).
const SCRIPT_FAILED_HEADER: &str = "Script failed\nWall time ";

pub(crate) fn plan_clear(
    item: &ResponseItem,
    result: &CompactableResult<'_>,
    config: &MicroCompactConfig,
    home: &Path,
    estimator: &dyn TokenEstimator,
) -> PlannedClear {
    let (persist_to, replacement) = if result.tokens > config.persist_threshold_tokens {
        let path = persisted_output_path(home, result.call_id);
        let marker = persisted_output_marker(&path, output_text_len(item));
        (Some(path), marker)
    } else {
        (None, CLEARED_TOOL_RESULT_TEXT.to_string())
    };
    // Measured on the replaced item built from the parts it keeps: the old body is neither
    // copied nor cloned (a decision on a long history plans hundreds of clears).
    let replaced_tokens = with_output_text(item, &replacement)
        .map_or(0, |replaced| estimator.estimate_item(&replaced));
    PlannedClear {
        index: result.index,
        call_id: result.call_id.to_string(),
        persist_to,
        tokens_saved: result.tokens.saturating_sub(replaced_tokens),
        replacement,
    }
}

/// Bytes of an output's text (what [`output_text`] would return), without building it when the
/// body is plain text.
fn output_text_len(item: &ResponseItem) -> usize {
    match item {
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => output_body_text(output).len(),
        _ => 0,
    }
}

/// A copy of the output `item` whose body is `text`, cloning only what it keeps (call id,
/// success flag, extra fields): what [`replace_output`] makes of a clone.
fn with_output_text(item: &ResponseItem, text: &str) -> Option<ResponseItem> {
    let output = |payload: &FunctionCallOutputPayload| FunctionCallOutputPayload {
        body: FunctionCallOutputBody::Text(text.to_string()),
        success: payload.success,
    };
    match item {
        ResponseItem::FunctionCallOutput {
            call_id,
            output: payload,
            extra,
        } => Some(ResponseItem::FunctionCallOutput {
            call_id: call_id.clone(),
            output: output(payload),
            extra: extra.clone(),
        }),
        ResponseItem::CustomToolCallOutput {
            call_id,
            output: payload,
            extra,
        } => Some(ResponseItem::CustomToolCallOutput {
            call_id: call_id.clone(),
            output: output(payload),
            extra: extra.clone(),
        }),
        _ => None,
    }
}

fn output_text(item: &ResponseItem) -> Option<String> {
    match item {
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => Some(output.text_content()),
        _ => None,
    }
}

/// Replaces an output's body with `text`, keeping its call id, success flag and extra fields.
fn replace_output(item: &mut ResponseItem, text: &str) -> bool {
    match item {
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => {
            output.body = FunctionCallOutputBody::Text(text.to_string());
            true
        }
        _ => false,
    }
}

#[cfg(test)]
#[path = "micro_compact_tests.rs"]
mod tests;
