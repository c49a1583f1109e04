//! The micro-compaction decision kept up to date as the history grows.
//!
//! [`decide_micro_compact`](crate::decide_micro_compact) walks the whole history to find the
//! results of compactable tools, their calls and which results a later one supersedes: on a
//! history of thousands of items that walk is most of the decision. A session appends a few
//! items per request and replaces the history only when it compacts, so
//! [`MicroCompactIndex`] keeps what the walk finds and, before each request, looks only at the
//! items appended since. The history's version (`ContextManager::history_version` in
//! `agentctx-context`, bumped by every change other than an append) tells it when to start
//! over. What it keeps of a result (its size, whether it is cleared or an error, which key it
//! has, what clearing it saves) is computed once, when the result is first seen; the savings
//! are computed again only when the persist threshold or the home changes. An index is meant
//! for one history under one token estimator. See docs/design/performance.md, "Per-turn
//! pipeline".

use std::path::Path;
use std::path::PathBuf;

use agentctx_context::ItemSize;
use agentctx_context::TokenEstimator;
use agentctx_protocol::ResponseItem;

use crate::config::MicroCompactConfig;
use crate::micro_compact::CompactableResult;
use crate::micro_compact::CompactableTool;
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

/// What the micro-compaction decision knows of a history's items, kept across requests.
///
/// ```
/// use agentctx_compact::CompactConfig;
/// use agentctx_compact::CompactionMode;
/// use agentctx_compact::MicroCompactIndex;
/// use agentctx_context::ApproxTokenEstimator;
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
/// let decision = index.decide(
///     history.raw_items(),
///     history.item_sizes(),
///     history.history_version(),
///     &config.micro,
///     CompactionMode::Normal,
///     &home,
///     &ApproxTokenEstimator,
/// );
/// assert!(!decision.worthwhile, "one small result is not worth clearing");
/// ```
#[derive(Debug, Clone, Default)]
pub struct MicroCompactIndex {
    /// The history version the index was built for; `None` before the first use.
    version: Option<u64>,
    /// How many items of the history have been looked at.
    indexed: usize,
    /// Calls of compactable tools by call id: the tool and the key a later result must share
    /// to supersede this one's result.
    /// (foldhash: the map is hashed on every tool call of the session, see
    /// docs/design/performance.md.)
    calls: foldhash::HashMap<String, (CompactableTool, Option<String>)>,
    /// The compactable results, in history order.
    results: Vec<IndexedResult>,
    /// The newest result of each key, as a position in `results`.
    latest_by_key: foldhash::HashMap<(CompactableTool, String), usize>,
    /// Tokens of the results not cleared yet.
    uncleared_tokens: u64,
    /// The settings the cached savings were computed under: the persist threshold and the
    /// home the markers name.
    saving_settings: Option<(u64, PathBuf)>,
}

/// A compactable result as the index keeps it: what does not change while the item stays.
#[derive(Debug, Clone)]
struct IndexedResult {
    index: usize,
    call_id: String,
    tool: CompactableTool,
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
    /// An empty index; the first decision looks at the whole history.
    pub fn new() -> Self {
        Self::default()
    }

    /// [`decide_micro_compact`](crate::decide_micro_compact) on `history`, looking only at
    /// the items appended since the last call when `version` is unchanged. `sizes[i]` is the
    /// size of `history[i]` (an item without one is measured), read when the item is first
    /// seen; `version` must change whenever the history changes other than by an append (an
    /// item edited or measured again included), as `ContextManager::history_version` does.
    #[allow(
        clippy::too_many_arguments,
        reason = "the decision's inputs, as decide_micro_compact takes them, plus the version"
    )]
    pub fn decide(
        &mut self,
        history: &[ResponseItem],
        sizes: &[ItemSize],
        version: u64,
        config: &MicroCompactConfig,
        mode: CompactionMode,
        home: &Path,
        estimator: &dyn TokenEstimator,
    ) -> MicroCompactDecision {
        self.sync(history, sizes, version, estimator);
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
            for (position, result) in self.results.iter_mut().enumerate() {
                let candidate = CompactableResult {
                    index: result.index,
                    call_id: &result.call_id,
                    tool: result.tool,
                    key: result.key.as_deref(),
                    tokens: result.tokens,
                    cleared: result.cleared,
                    is_error: result.is_error,
                    superseded: result.superseded,
                };
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
                        let Some(item) = history.get(result.index) else {
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
    #[allow(
        clippy::too_many_arguments,
        reason = "the plan's inputs, as plan_micro_compact_sized takes them, plus the version"
    )]
    pub fn plan(
        &mut self,
        history: &[ResponseItem],
        sizes: &[ItemSize],
        version: u64,
        config: &MicroCompactConfig,
        mode: CompactionMode,
        home: &Path,
        estimator: &dyn TokenEstimator,
    ) -> MicroCompactPlan {
        self.plan_with(
            history,
            sizes,
            version,
            config,
            mode,
            home,
            estimator,
            Planning::Whole,
        )
    }

    /// What a host runs before every request: [`MicroCompactIndex::decide`], and the plan
    /// only when the answer is yes (`Some`, a plan that is worthwhile).
    #[allow(
        clippy::too_many_arguments,
        reason = "the decision's inputs, as decide takes them"
    )]
    pub fn plan_when_worthwhile(
        &mut self,
        history: &[ResponseItem],
        sizes: &[ItemSize],
        version: u64,
        config: &MicroCompactConfig,
        mode: CompactionMode,
        home: &Path,
        estimator: &dyn TokenEstimator,
    ) -> (MicroCompactDecision, Option<MicroCompactPlan>) {
        let decision = self.decide(history, sizes, version, config, mode, home, estimator);
        if !decision.worthwhile {
            return (decision, None);
        }
        let plan = self.plan(history, sizes, version, config, mode, home, estimator);
        // The walks agree (property-tested); never hand out a plan that is not worth it.
        (decision, plan.worthwhile.then_some(plan))
    }

    #[allow(clippy::too_many_arguments, reason = "see decide and plan")]
    fn plan_with(
        &mut self,
        history: &[ResponseItem],
        sizes: &[ItemSize],
        version: u64,
        config: &MicroCompactConfig,
        mode: CompactionMode,
        home: &Path,
        estimator: &dyn TokenEstimator,
        planning: Planning,
    ) -> MicroCompactPlan {
        self.sync(history, sizes, version, estimator);
        let results: Vec<CompactableResult<'_>> = self
            .results
            .iter()
            .map(|result| CompactableResult {
                index: result.index,
                call_id: &result.call_id,
                tool: result.tool,
                key: result.key.as_deref(),
                tokens: result.tokens,
                cleared: result.cleared,
                is_error: result.is_error,
                superseded: result.superseded,
            })
            .collect();
        plan_results(history, &results, config, mode, home, estimator, planning)
    }

    /// Brings the index up to `history`: the appended items only while `version` is the one
    /// it was built for and the history has not shrunk, else everything again.
    fn sync(
        &mut self,
        history: &[ResponseItem],
        sizes: &[ItemSize],
        version: u64,
        estimator: &dyn TokenEstimator,
    ) {
        if self.version != Some(version) || history.len() < self.indexed {
            *self = Self {
                version: Some(version),
                ..Self::default()
            };
        }
        for (index, item) in history.iter().enumerate().skip(self.indexed) {
            let tokens = sizes
                .get(index)
                .map_or_else(|| estimator.estimate_item(item), |size| size.tokens);
            self.add(index, item, tokens);
        }
        self.indexed = history.len();
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
                self.calls
                    .insert(call_id.clone(), (CompactableTool::Bash, None));
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
                self.results.push(IndexedResult {
                    index,
                    call_id: call_id.clone(),
                    tool,
                    key,
                    tokens,
                    cleared,
                    is_error: is_error_output(output, &text),
                    superseded: false,
                    saving: None,
                });
            }
            _ => {}
        }
    }

    fn add_call(&mut self, call_id: &str, name: &str, arguments: Option<&str>) {
        if let Some(tool) = CompactableTool::from_tool_name(name) {
            let key = arguments.map(|arguments| supersede_key(tool, arguments).to_string());
            self.calls.insert(call_id.to_string(), (tool, key));
        }
    }
}

#[cfg(test)]
#[path = "micro_compact_index_tests.rs"]
mod tests;
