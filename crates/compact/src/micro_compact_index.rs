//! The micro-compaction decision kept up to date as the history grows.
//!
//! [`decide_micro_compact`](crate::decide_micro_compact) walks the whole history to find the
//! results of compactable tools, their calls and which results a later one supersedes: on a
//! history of thousands of items that walk is most of the decision. A session appends a few
//! items per request and replaces the history only when it compacts, so
//! [`MicroCompactIndex`] keeps what the walk finds and, before each request, looks only at the
//! items appended since. The history's version (`ContextManager::history_version` in
//! `agentctx-context`, bumped by every change other than an append) tells it when to start
//! over; the clears of [`micro_compact`](crate::micro_compact) are recorded in it as they are
//! applied, so they do not make it start over. What it keeps of a result (its size, whether it
//! is cleared or an error, which key it has, what clearing it saves) is computed once, when the
//! result is first seen; the savings are computed again only when the persist threshold or the
//! home changes. An index is meant for one history. See docs/design/performance.md, "Per-turn
//! pipeline".

use std::path::Path;
use std::path::PathBuf;

use agentctx_context::ContextManager;
use agentctx_protocol::ResponseItem;

use crate::config::MicroCompactConfig;
use crate::micro_compact::CompactableResult;
use crate::micro_compact::MicroCompactDecision;
use crate::micro_compact::MicroCompactPlan;
use crate::micro_compact::Planning;
use crate::micro_compact::is_error_output;
use crate::micro_compact::is_worthwhile;
use crate::micro_compact::output_body_text;
use crate::micro_compact::plan_clear;
use crate::micro_compact::plan_results;
use crate::micro_compact::supersede_key;
use crate::persisted_output::is_cleared_output;
use crate::thrash_guard::CompactionMode;
use crate::tool_class::ToolClass;
use crate::tool_class::ToolClasses;

/// What the micro-compaction decision knows of a history's items, kept across requests.
///
/// ```
/// use agentctx_compact::CompactConfig;
/// use agentctx_compact::CompactionMode;
/// use agentctx_compact::MicroCompactIndex;
/// use agentctx_context::ContextManager;
/// use agentctx_context::TruncationPolicy;
/// use agentctx_protocol::ResponseItem;
///
/// let mut history = ContextManager::new();
/// history.record_items(
///     [
///         ResponseItem::user_text("look around"),
///         ResponseItem::function_call("c1", "shell", r#"{"command":"ls"}"#),
///         ResponseItem::function_call_output("c1", "Cargo.toml\nsrc"),
///     ],
///     TruncationPolicy::Bytes(10_000),
/// );
/// let config = CompactConfig::default();
/// let home = std::env::temp_dir();
/// let mut index = MicroCompactIndex::new();
/// let decision = index.decide(&history, &config.micro, CompactionMode::Normal, &home);
/// assert!(!decision.worthwhile, "one small result is not worth clearing");
/// ```
#[derive(Debug, Clone, Default)]
pub struct MicroCompactIndex {
    /// Which tools are of which class (the host's, else the recorded names).
    tools: ToolClasses,
    /// The history version the index was built for; `None` before the first use.
    version: Option<u64>,
    /// How many items of the history have been looked at.
    indexed: usize,
    /// Calls of compactable tools by call id: the tool and the key a later result must share
    /// to supersede this one's result.
    /// (foldhash: the map is hashed on every tool call of the session, see
    /// docs/design/performance.md.)
    calls: foldhash::HashMap<String, (ToolClass, Option<String>)>,
    /// The compactable results, in history order.
    results: Vec<IndexedResult>,
    /// The newest result of each key, as a position in `results`.
    latest_by_key: foldhash::HashMap<(ToolClass, String), usize>,
    /// Tokens of the results not cleared yet.
    uncleared_tokens: u64,
    /// The positions in `results` of the results a walk may still clear, in order: not the
    /// settled ones (cleared, errors, confirmations of edits and writes), which stay so while
    /// the version does. On a long session most old results are cleared, and the decision
    /// before every request looks only at the few that are not.
    open: Vec<usize>,
    /// The settings the cached savings were computed under: the persist threshold and the
    /// home the markers name.
    saving_settings: Option<(u64, PathBuf)>,
}

/// A compactable result as the index keeps it: what does not change while the item stays.
#[derive(Debug, Clone)]
struct IndexedResult {
    index: usize,
    call_id: String,
    tool: ToolClass,
    key: Option<String>,
    tokens: u64,
    cleared: bool,
    is_error: bool,
    superseded: bool,
    /// What clearing it saves, once computed (it depends only on the item and the saving
    /// settings, so a decision walking the same oldest results turn after turn computes
    /// each once).
    saving: Option<u64>,
}

impl MicroCompactIndex {
    /// An empty index that knows tools by the names Codex and Claude Code record; the first
    /// decision looks at the whole history.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty index that knows tools by `tools` (a host's own tools, the recorded names for
    /// the others).
    pub fn with_tool_classes(tools: ToolClasses) -> Self {
        Self {
            tools,
            ..Self::default()
        }
    }

    /// The classes it knows tools by.
    pub fn tool_classes(&self) -> &ToolClasses {
        &self.tools
    }

    /// Knows tools by `tools` from now on: the next decision looks at the whole history again
    /// when they changed.
    pub fn set_tool_classes(&mut self, tools: ToolClasses) {
        if self.tools != tools {
            *self = Self::with_tool_classes(tools);
        }
    }

    /// [`decide_micro_compact`](crate::decide_micro_compact) on `history`, looking only at
    /// the items appended since the last call while its version is unchanged. Each item's size
    /// is the one `history` keeps, read when the item is first seen.
    pub fn decide(
        &mut self,
        history: &ContextManager,
        config: &MicroCompactConfig,
        mode: CompactionMode,
        home: &Path,
    ) -> MicroCompactDecision {
        self.sync(history);
        let items = history.raw_items();
        let estimator = history.estimator();
        let settings = (config.persist_threshold_tokens, home.to_path_buf());
        if self.saving_settings.as_ref() != Some(&settings) {
            for result in &mut self.results {
                result.saving = None;
            }
            self.saving_settings = Some(settings);
        }
        // The walk of `plan_results`, in the same order (superseded results first, then the
        // others, each oldest first) with the same stops, on the kept facts and savings.
        let keep_from = self
            .results
            .len()
            .saturating_sub(config.keep_recent_results);
        let mut remaining = self.uncleared_tokens;
        let mut decision = MicroCompactDecision::default();
        'walk: for first_round in [true, false] {
            for &position in &self.open {
                let Some(result) = self.results.get_mut(position) else {
                    continue;
                };
                let candidate = result.candidate();
                if !candidate.is_clearable(position < keep_from)
                    || candidate.goes_first() != first_round
                {
                    continue;
                }
                if mode == CompactionMode::Normal && remaining <= config.target_tool_result_tokens {
                    break 'walk;
                }
                let saving = match result.saving {
                    Some(saving) => saving,
                    None => {
                        let Some(item) = items.get(result.index) else {
                            continue;
                        };
                        let saving =
                            plan_clear(item, &candidate, config, home, estimator).tokens_saved;
                        result.saving = Some(saving);
                        saving
                    }
                };
                if saving == 0 {
                    continue;
                }
                remaining = remaining.saturating_sub(result.tokens);
                decision.tokens_saved = decision.tokens_saved.saturating_add(saving);
                decision.planned_clears += 1;
                if is_worthwhile(mode, decision.tokens_saved, config) {
                    break 'walk;
                }
            }
        }
        decision.worthwhile = is_worthwhile(mode, decision.tokens_saved, config);
        decision
    }

    /// [`plan_micro_compact_sized`](crate::plan_micro_compact_sized) on `history`, with the
    /// index brought up to date as [`MicroCompactIndex::decide`] does.
    pub fn plan(
        &mut self,
        history: &ContextManager,
        config: &MicroCompactConfig,
        mode: CompactionMode,
        home: &Path,
    ) -> MicroCompactPlan {
        self.sync(history);
        let results: Vec<CompactableResult<'_>> =
            self.results.iter().map(IndexedResult::candidate).collect();
        plan_results(
            history.raw_items(),
            &results,
            config,
            mode,
            home,
            history.estimator(),
            Planning::Whole,
        )
    }

    /// Records that `plan` was just applied to `history`, whose version was `version` before
    /// (`micro_compact` replaced the planned results in place): the cleared results take their
    /// new sizes and the index the new version, so the next decision goes on from here instead
    /// of looking at the whole history again. When the index was not up to date with that
    /// version, the next decision looks at everything.
    pub(crate) fn record_clears(
        &mut self,
        history: &ContextManager,
        version: u64,
        plan: &MicroCompactPlan,
    ) {
        if self.version != Some(version) || self.indexed != history.len() {
            self.version = None;
            return;
        }
        let sizes = history.item_sizes();
        for clear in &plan.clears {
            let Ok(position) = self
                .results
                .binary_search_by_key(&clear.index, |result| result.index)
            else {
                continue;
            };
            let Some(result) = self.results.get_mut(position) else {
                continue;
            };
            if !result.cleared {
                self.uncleared_tokens = self.uncleared_tokens.saturating_sub(result.tokens);
            }
            if let Some(size) = sizes.get(clear.index) {
                result.tokens = size.tokens;
            }
            result.cleared = true;
            result.is_error = false;
            result.saving = None;
        }
        let results = &self.results;
        self.open.retain(|&position| {
            results
                .get(position)
                .is_some_and(|result| !result.is_settled())
        });
        self.version = Some(history.history_version());
    }

    /// Brings the index up to `history`: the appended items only while its version is the one
    /// the index was built for and it has not shrunk, else everything again.
    fn sync(&mut self, history: &ContextManager) {
        let version = history.history_version();
        let items = history.raw_items();
        if self.version != Some(version) || items.len() < self.indexed {
            *self = Self {
                version: Some(version),
                ..Self::with_tool_classes(std::mem::take(&mut self.tools))
            };
        }
        let sizes = history.item_sizes();
        let estimator = history.estimator();
        for (index, item) in items.iter().enumerate().skip(self.indexed) {
            let tokens = sizes
                .get(index)
                .map_or_else(|| estimator.estimate_item(item), |size| size.tokens);
            self.add(index, item, tokens);
        }
        self.indexed = items.len();
    }

    /// Looks at one appended item, as `collect_compactable_results` does.
    fn add(&mut self, index: usize, item: &ResponseItem, tokens: u64) {
        match item {
            ResponseItem::FunctionCall {
                name,
                arguments,
                call_id,
                ..
            } => self.add_call(call_id, name, Some(arguments)),
            ResponseItem::CustomToolCall {
                name,
                input,
                call_id,
                ..
            } => self.add_call(call_id, name, Some(input)),
            ResponseItem::LocalShellCall {
                call_id: Some(call_id),
                ..
            } => {
                self.calls.insert(call_id.clone(), (ToolClass::Shell, None));
            }
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            }
            | ResponseItem::CustomToolCallOutput {
                call_id, output, ..
            } => {
                let Some((tool, key)) = self.calls.get(call_id.as_str()).cloned() else {
                    return;
                };
                let text = output_body_text(output);
                let position = self.results.len();
                if let Some(key) = &key
                    && let Some(earlier) = self.latest_by_key.insert((tool, key.clone()), position)
                    && let Some(earlier) = self.results.get_mut(earlier)
                {
                    earlier.superseded = true;
                }
                let cleared = is_cleared_output(&text);
                if !cleared {
                    self.uncleared_tokens = self.uncleared_tokens.saturating_add(tokens);
                }
                let result = IndexedResult {
                    index,
                    call_id: call_id.clone(),
                    tool,
                    key,
                    tokens,
                    cleared,
                    is_error: is_error_output(output, &text),
                    superseded: false,
                    saving: None,
                };
                if !result.is_settled() {
                    self.open.push(position);
                }
                self.results.push(result);
            }
            _ => {}
        }
    }

    fn add_call(&mut self, call_id: &str, name: &str, arguments: Option<&str>) {
        if let Some(tool) = self.tools.class_of(name) {
            let key = arguments.map(|arguments| supersede_key(tool, arguments).to_string());
            self.calls.insert(call_id.to_string(), (tool, key));
        }
    }
}

impl IndexedResult {
    /// No walk can clear it while the history's version stays: it is cleared, an error, or the
    /// confirmation of an edit or a write.
    fn is_settled(&self) -> bool {
        self.cleared || self.is_error || self.tool.is_protected()
    }

    /// The result as the plan's walk takes it.
    fn candidate(&self) -> CompactableResult<'_> {
        CompactableResult {
            index: self.index,
            call_id: &self.call_id,
            tool: self.tool,
            key: self.key.as_deref(),
            tokens: self.tokens,
            cleared: self.cleared,
            is_error: self.is_error,
            superseded: self.superseded,
        }
    }
}

#[cfg(test)]
#[path = "micro_compact_index_tests.rs"]
mod tests;
