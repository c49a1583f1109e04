//! Micro-compaction: before every model request, old results of compactable tools are cleared
//! from the history without a model call, the large ones kept on disk first (see
//! docs/design/compaction.md, "Micro-compaction").
//!
//! [`micro_compact`] is the one way a history is micro-compacted: it decides on what a
//! [`MicroCompactIndex`] knows of the history (before most requests that is the whole cost),
//! plans only when clearing is worth it, writes the files ([`MicroPersistence::Write`]) and
//! replaces the results in place. The plan ([`plan_micro_compact`]) reads the history only. Both
//! are deterministic: the same history, settings and home give the same bytes, so the
//! provider's prompt cache is not churned by a re-run.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;

use agentctx_context::ContextManager;
use agentctx_context::ItemSize;
use agentctx_context::TokenEstimator;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;

use crate::config::CompactConfig;
use crate::config::MicroCompactConfig;
use crate::micro_compact_index::MicroCompactIndex;
use crate::persisted_output::CLEARED_TOOL_RESULT_TEXT;
use crate::persisted_output::is_cleared_output;
use crate::persisted_output::output_digest;
use crate::persisted_output::persist_output;
use crate::persisted_output::persisted_output_marker;
use crate::persisted_output::persisted_output_path;
use crate::thrash_guard::CompactionMode;
use crate::tool_class::ToolClass;
use crate::tool_class::ToolClasses;

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
    /// Tokens saved: the history's estimate before the clears minus after.
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

/// What micro-compaction does with the results it clears.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MicroPersistence {
    /// A result over the persist threshold is first written whole under the home
    /// (`<home>/tool-results/`), and its marker names the file: a live session, `agentctx
    /// compact`.
    Write,
    /// Only the markers go into the history, naming the files a live session would have
    /// written: a replay, which writes nothing.
    MarkersOnly,
}

/// Micro-compacts `history` under `config` in `mode`: decides on what `index` knows of it (only
/// the items appended since its last use are looked at), and only when clearing is worth it
/// plans, writes the results over the persist threshold under `home` (with
/// [`MicroPersistence::Write`]) and replaces the cleared results in place, each item measured
/// again. The history is left untouched when it is skipped, and when a file cannot be written.
///
/// This is the one route of the tier: a host calls it before every request, and `agentctx
/// compact --tier micro` on demand. `index` is meant for this one history (it is kept up to
/// date with the clears).
///
/// ```
/// use agentctx_compact::CompactConfig;
/// use agentctx_compact::CompactionMode;
/// use agentctx_compact::MicroCompactIndex;
/// use agentctx_compact::MicroCompactResult;
/// use agentctx_compact::MicroCompactSkip;
/// use agentctx_compact::MicroPersistence;
/// use agentctx_compact::micro_compact;
/// use agentctx_context::ContextManager;
/// use agentctx_protocol::ResponseItem;
///
/// let mut history = ContextManager::new();
/// history.replace(vec![
///     ResponseItem::function_call("c1", "shell", r#"{"command":"ls"}"#),
///     ResponseItem::function_call_output("c1", "Cargo.toml\nsrc"),
/// ]);
/// let mut index = MicroCompactIndex::new();
/// let result = micro_compact(
///     &mut history,
///     &mut index,
///     &CompactConfig::default(),
///     CompactionMode::Normal,
///     &std::env::temp_dir(),
///     MicroPersistence::MarkersOnly,
/// )?;
/// // The newest results are what the model works from: nothing to clear.
/// assert_eq!(
///     result,
///     MicroCompactResult::Skipped(MicroCompactSkip::NothingToClear)
/// );
/// # Ok::<(), agentctx_compact::MicroCompactError>(())
/// ```
pub fn micro_compact(
    history: &mut ContextManager,
    index: &mut MicroCompactIndex,
    config: &CompactConfig,
    mode: CompactionMode,
    home: &Path,
    persistence: MicroPersistence,
) -> Result<MicroCompactResult, MicroCompactError> {
    if !config.micro_compact_enabled() {
        return Ok(MicroCompactResult::Skipped(MicroCompactSkip::Disabled));
    }
    // The decision stops as soon as its answer is known; the plan is built only on a yes.
    let decision = index.decide(history, &config.micro, mode, home);
    if decision.planned_clears == 0 {
        return Ok(MicroCompactResult::Skipped(
            MicroCompactSkip::NothingToClear,
        ));
    }
    if !decision.worthwhile {
        return Ok(MicroCompactResult::Skipped(
            MicroCompactSkip::BelowMinimumSavings {
                would_save: decision.tokens_saved,
            },
        ));
    }
    let plan = index.plan(history, &config.micro, mode, home);
    if !plan.worthwhile {
        // The walks agree (property-tested); a plan that is not worth it is never applied.
        return Ok(MicroCompactResult::Skipped(
            MicroCompactSkip::BelowMinimumSavings {
                would_save: plan.tokens_saved,
            },
        ));
    }
    let version = history.history_version();
    let outcome = apply(history, &plan, persistence)?;
    index.record_clears(history, version, &plan);
    Ok(MicroCompactResult::Applied(outcome))
}

/// Decides what micro-compaction would clear, without touching the history or the disk: what
/// [`micro_compact`] would apply, looked at afresh. `tools` says which calls are of which class.
pub fn plan_micro_compact(
    history: &[ResponseItem],
    tools: &ToolClasses,
    config: &MicroCompactConfig,
    mode: CompactionMode,
    home: &Path,
    estimator: &dyn TokenEstimator,
) -> MicroCompactPlan {
    plan_micro_compact_sized(history, &[], tools, config, mode, home, estimator)
}

/// [`plan_micro_compact`] with the sizes of the items already known: `sizes[i]` is the size of
/// `history[i]` under `estimator` (what `ContextManager::item_sizes` keeps, measured once when
/// each item entered). Results are then not measured again, which is most of the decision's
/// cost on a long history (see docs/design/performance.md, "Per-turn pipeline"). An item
/// without a size (`sizes` shorter than `history`) is measured.
pub fn plan_micro_compact_sized(
    history: &[ResponseItem],
    sizes: &[ItemSize],
    tools: &ToolClasses,
    config: &MicroCompactConfig,
    mode: CompactionMode,
    home: &Path,
    estimator: &dyn TokenEstimator,
) -> MicroCompactPlan {
    plan(
        history,
        sizes,
        tools,
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
    tools: &ToolClasses,
    config: &MicroCompactConfig,
    mode: CompactionMode,
    home: &Path,
    estimator: &dyn TokenEstimator,
) -> MicroCompactDecision {
    let partial = plan(
        history,
        sizes,
        tools,
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

#[expect(
    clippy::too_many_arguments,
    reason = "the inputs of plan_micro_compact_sized and how much of the plan to build"
)]
fn plan(
    history: &[ResponseItem],
    sizes: &[ItemSize],
    tools: &ToolClasses,
    config: &MicroCompactConfig,
    mode: CompactionMode,
    home: &Path,
    estimator: &dyn TokenEstimator,
    planning: Planning,
) -> MicroCompactPlan {
    let results = collect_compactable_results(history, sizes, tools, estimator);
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

/// Writes the planned files (with [`MicroPersistence::Write`]), then replaces the planned
/// results in place. When a file cannot be written the history is left untouched.
fn apply(
    history: &mut ContextManager,
    plan: &MicroCompactPlan,
    persistence: MicroPersistence,
) -> Result<MicroCompactOutcome, MicroCompactError> {
    let mut ordered: Vec<&PlannedClear> = plan.clears.iter().collect();
    ordered.sort_by_key(|clear| clear.index);

    let mut persisted_paths = Vec::new();
    if persistence == MicroPersistence::Write {
        for clear in &ordered {
            let (Some(path), Some(text)) = (
                &clear.persist_to,
                history.raw_items().get(clear.index).and_then(output_text),
            ) else {
                continue;
            };
            persist_output(path, &text).map_err(|source| MicroCompactError {
                call_id: clear.call_id.clone(),
                path: path.clone(),
                source,
            })?;
            persisted_paths.push(path.clone());
        }
    }

    let tokens_before = history.estimate_token_count();
    let cleared_call_ids = ordered
        .iter()
        .filter(|clear| {
            history
                .raw_items()
                .get(clear.index)
                .is_some_and(ResponseItem::is_tool_output)
        })
        .map(|clear| clear.call_id.clone())
        .collect();
    history.replace_tool_output_texts(
        ordered
            .iter()
            .map(|clear| (clear.index, clear.replacement.clone())),
    );
    Ok(MicroCompactOutcome {
        tokens_saved: tokens_before.saturating_sub(history.estimate_token_count()),
        cleared_call_ids,
        persisted_paths,
    })
}

/// One result of a compactable tool.
pub(crate) struct CompactableResult<'a> {
    pub(crate) index: usize,
    pub(crate) call_id: &'a str,
    pub(crate) tool: ToolClass,
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
        let is_latest_read = self.tool == ToolClass::Read && self.key.is_some() && !self.superseded;
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
    tools: &ToolClasses,
    estimator: &dyn TokenEstimator,
) -> Vec<CompactableResult<'a>> {
    let mut calls: HashMap<&str, (ToolClass, Option<&str>)> = HashMap::new();
    let mut results = Vec::new();
    for (index, item) in history.iter().enumerate() {
        match item {
            ResponseItem::FunctionCall {
                name,
                arguments,
                call_id,
                ..
            } => {
                if let Some(tool) = tools.class_of(name) {
                    calls.insert(call_id, (tool, Some(arguments.as_str())));
                }
            }
            ResponseItem::CustomToolCall {
                name,
                input,
                call_id,
                ..
            } => {
                if let Some(tool) = tools.class_of(name) {
                    calls.insert(call_id, (tool, Some(input.as_str())));
                }
            }
            ResponseItem::LocalShellCall {
                call_id: Some(call_id),
                ..
            } => {
                calls.insert(call_id, (ToolClass::Shell, None));
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
    let mut latest_by_key: HashMap<(ToolClass, &str), usize> = HashMap::new();
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
pub(crate) fn supersede_key(tool: ToolClass, arguments: &str) -> &str {
    if tool == ToolClass::Read
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
        && let Some(code) = agentctx_context::json_exit_code(text).flatten()
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
        let text = output_text(item).unwrap_or_default();
        let marker = persisted_output_marker(&path, text.len(), &output_digest(&text));
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

/// A copy of the output `item` whose body is `text`, cloning only what it keeps (call id,
/// success flag, extra fields): what `ContextManager::replace_tool_output_texts` makes of it.
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

/// The text of a tool output (what a persisted file holds), borrowed when it is plain text.
fn output_text(item: &ResponseItem) -> Option<Cow<'_, str>> {
    match item {
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => Some(output_body_text(output)),
        _ => None,
    }
}

#[cfg(test)]
#[path = "micro_compact_tests.rs"]
mod tests;
