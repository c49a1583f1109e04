//! Glue to `agentctx-memory`: the cross-session memory pipeline at session start, the memory
//! summary in the developer instructions, and the memory usage metric.
//!
//! The session builds one [`MemoryExt`] from the `[memory]` section ([`MemorySettings`]) and
//! calls it in three places, one line each: [`MemoryExt::start`] before its first turn (the
//! pipeline runs fire-and-forget on the runtime and never blocks a turn),
//! [`MemoryExt::developer_instructions`] in the full initial context (so the summary is in the
//! first request and again after every compaction), and [`MemoryExt::record_tool_calls`] after
//! each batch of tool calls. Delete this file and those call sites and the session runs without
//! memory. See docs/design/core.md, "Memory" and docs/design/memory.md, "Injection and usage".

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;

use agentctx_memory::DEFAULT_MAX_ROLLOUT_AGE_DAYS;
use agentctx_memory::DEFAULT_MAX_ROLLOUTS_PER_STARTUP;
use agentctx_memory::DEFAULT_MIN_ROLLOUT_IDLE_HOURS;
use agentctx_memory::Extractor;
use agentctx_memory::MEMORIES_USAGE_METRIC;
use agentctx_memory::MemoriesUsageKind;
use agentctx_memory::MemoryConfig;
use agentctx_memory::MemoryPipeline;
use agentctx_memory::MemoryStartup;
use agentctx_memory::ModelConsolidator;
use agentctx_memory::OfflineConsolidator;
use agentctx_memory::memories_usage;
use agentctx_memory::memory_instructions;
use agentctx_memory::memory_root;
use agentctx_memory::start_memory_pipeline;
use agentctx_model::ModelClient;
use agentctx_protocol::ResponseItem;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use crate::session_state::ToolRun;

/// Who extracts and consolidates memories in the background pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryExtractor {
    /// The session's model (structured phase-1 calls, model consolidation).
    #[default]
    Model,
    /// No model: the deterministic offline extraction and consolidation.
    Offline,
}

/// `[memory]` in `config.toml`: the cross-session memory of docs/design/memory.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct MemorySettings {
    /// Put `memories/memory_summary.md` (at most 5,000 tokens) and the read-path instructions
    /// into the developer instructions.
    pub use_memories: bool,
    /// Run the memory pipeline (thread sync, phase 1, phase 2) in the background when a
    /// session starts.
    pub generate_memories: bool,
    /// `model` or `offline`.
    pub extractor: MemoryExtractor,
    /// Sessions claimed per startup (1 to 128).
    pub max_rollouts_per_startup: usize,
    /// Sessions older than this many days are not learned from.
    pub max_rollout_age_days: i64,
    /// Sessions idle for less than this many hours are not learned from yet.
    pub min_rollout_idle_hours: i64,
}

impl Default for MemorySettings {
    fn default() -> Self {
        Self {
            use_memories: true,
            generate_memories: true,
            extractor: MemoryExtractor::default(),
            max_rollouts_per_startup: DEFAULT_MAX_ROLLOUTS_PER_STARTUP,
            max_rollout_age_days: DEFAULT_MAX_ROLLOUT_AGE_DAYS,
            min_rollout_idle_hours: DEFAULT_MIN_ROLLOUT_IDLE_HOURS,
        }
    }
}

/// One usage metric key: which memory part, through which tool, and whether the call
/// succeeded (the tags of `agentctx.memories.usage`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MemoryUsageKey {
    /// The memory part read.
    pub kind: MemoriesUsageKind,
    /// The tool that read it.
    pub tool: String,
    /// The tool call succeeded.
    pub success: bool,
}

/// The session's memory glue.
#[derive(Debug)]
pub(crate) struct MemoryExt {
    settings: MemorySettings,
    home: PathBuf,
    root: PathBuf,
    startup: Option<MemoryStartup>,
    usage: Mutex<BTreeMap<MemoryUsageKey, u64>>,
}

impl MemoryExt {
    /// The memory glue for the agentctx `home`.
    pub(crate) fn new(settings: &MemorySettings, home: &Path) -> Self {
        Self {
            settings: settings.clone(),
            home: home.to_path_buf(),
            root: memory_root(home),
            startup: None,
            usage: Mutex::new(BTreeMap::new()),
        }
    }

    /// Starts the pipeline once, in the background (later calls do nothing): it learns from the
    /// finished sessions under `<home>/sessions`, never from `session_id`. Its failures are
    /// logged by the memory crate and never reach the session.
    pub(crate) fn start(&mut self, session_id: &str, model: &Arc<dyn ModelClient>) {
        if self.startup.is_some() || !self.settings.generate_memories {
            return;
        }
        if tokio::runtime::Handle::try_current().is_err() {
            tracing::warn!("no tokio runtime: the memory pipeline is not started");
            return;
        }
        let mut config = MemoryConfig::new(&self.home)
            .with_max_rollouts_per_startup(self.settings.max_rollouts_per_startup);
        config.current_thread_id = Some(session_id.to_string());
        config.max_rollout_age_days = self.settings.max_rollout_age_days;
        config.min_rollout_idle_hours = self.settings.min_rollout_idle_hours;
        let (extractor, consolidator): (Extractor, Arc<dyn agentctx_memory::Consolidator>) =
            match self.settings.extractor {
                MemoryExtractor::Model => (
                    Extractor::Model(Arc::clone(model)),
                    Arc::new(ModelConsolidator::new(Arc::clone(model))),
                ),
                MemoryExtractor::Offline => (Extractor::Offline, Arc::new(OfflineConsolidator)),
            };
        // The memory crate logs the outcome; the session only keeps the task to wait for it.
        self.startup = Some(start_memory_pipeline(MemoryPipeline {
            config,
            session_roots: vec![self.home.join("sessions")],
            extractor,
            consolidator,
        }));
    }

    /// Waits for the startup pipeline, if one runs (tests and shutdown).
    pub(crate) async fn wait_for_startup(&mut self) {
        if let Some(startup) = self.startup.take() {
            let _ = startup.handle.await;
        }
    }

    /// The memory summary with the read-path instructions, as a developer message, when
    /// memories are used and a summary exists. An unreadable summary is logged and skipped.
    pub(crate) fn developer_instructions(&self) -> Option<ResponseItem> {
        if !self.settings.use_memories {
            return None;
        }
        match memory_instructions(&self.home) {
            Ok(text) => text.map(ResponseItem::developer_text),
            Err(error) => {
                tracing::warn!(%error, "memory summary not read");
                None
            }
        }
    }

    /// Counts the memory files each call of a batch read (`calls` as `(call_id, name,
    /// arguments)`, `runs` their outcomes), and logs each use as the
    /// `agentctx.memories.usage` metric.
    pub(crate) fn record_tool_calls(&self, calls: &[(String, String, String)], runs: &[ToolRun]) {
        let mut usage = self.usage.lock().unwrap_or_else(PoisonError::into_inner);
        for (call_id, name, arguments) in calls {
            let success = runs
                .iter()
                .find(|run| &run.call_id == call_id)
                .is_some_and(|run| run.success);
            for kind in memories_usage(name, arguments, &self.root) {
                tracing::info!(
                    metric = MEMORIES_USAGE_METRIC,
                    kind = kind.as_str(),
                    tool = %name,
                    success,
                    "memory used"
                );
                *usage
                    .entry(MemoryUsageKey {
                        kind,
                        tool: name.clone(),
                        success,
                    })
                    .or_insert(0) += 1;
            }
        }
    }

    /// The usage counted so far.
    pub(crate) fn usage(&self) -> BTreeMap<MemoryUsageKey, u64> {
        self.usage
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
