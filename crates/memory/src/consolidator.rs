//! Phase 2's consolidation step behind the [`Consolidator`] trait: the default makes one
//! structured model call from this crate ([`ModelConsolidator`]); the offline one merges without
//! a model ([`crate::OfflineConsolidator`]); a host may supply an agentic one that writes the
//! files itself. See docs/design/memory.md, "Phase 2".

use std::path::PathBuf;
use std::sync::Arc;

use agentctx_model::ModelClient;
use agentctx_model::complete_structured;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::MemoryError;
use crate::prompts::CONSOLIDATION;
use crate::prompts::render;
use crate::redact::redact_secrets;
use crate::state_db::StoredOutput;
use crate::storage::rfc3339;
use crate::storage::stem_of;

/// The user message of the structured consolidation call.
pub const CONSOLIDATION_REQUEST: &str =
    "Write the consolidated memory files now, as one JSON object.";
/// Longest skill name.
pub(crate) const MAX_SKILL_NAME_CHARS: usize = 64;

/// First build of the consolidated files, or an update of existing ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsolidationMode {
    /// No consolidated memory yet: build every file.
    Init,
    /// Integrate only the new outputs into the existing files.
    Incremental,
}

impl ConsolidationMode {
    /// The word the prompt uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Init => "INIT",
            Self::Incremental => "INCREMENTAL",
        }
    }
}

/// What a consolidator works from.
#[derive(Debug, Clone)]
pub struct ConsolidationInput {
    /// INIT or INCREMENTAL.
    pub mode: ConsolidationMode,
    /// The memory folder (`rollout_summaries/` and `raw_memories.md` are already synced).
    pub memory_root: PathBuf,
    /// Outputs newer than the last consolidation, newest first (all of them in INIT).
    pub new_outputs: Vec<StoredOutput>,
    /// Every retained output, newest first.
    pub all_outputs: Vec<StoredOutput>,
    /// `MEMORY.md` as it is now.
    pub current_memory: Option<String>,
    /// `memory_summary.md` as it is now.
    pub current_summary: Option<String>,
}

/// A skill file to write under `skills/<name>/SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillFile {
    /// The skill's folder name (at most 64 characters).
    pub name: String,
    /// The whole `SKILL.md` (YAML frontmatter and instructions).
    pub content: String,
}

/// What a consolidator produced. `None` files are left as they are (a consolidator that wrote
/// them itself, or chose to change nothing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsolidationOutput {
    /// New `MEMORY.md`.
    pub memory_md: Option<String>,
    /// New `memory_summary.md`.
    pub memory_summary: Option<String>,
    /// Skills to write (others are kept).
    pub skills: Vec<SkillFile>,
}

/// Turns stage-1 outputs into the consolidated memory files.
#[async_trait]
pub trait Consolidator: Send + Sync {
    /// Consolidates `input`. An error fails the phase-2 job (retried later).
    async fn consolidate(
        &self,
        input: &ConsolidationInput,
    ) -> Result<ConsolidationOutput, MemoryError>;
}

/// The reply of the structured consolidation call.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConsolidationReply {
    /// The whole new `MEMORY.md`.
    pub memory_md: String,
    /// The whole new `memory_summary.md`.
    pub memory_summary: String,
    /// Skills to write; may be empty.
    pub skills: Vec<SkillFile>,
}

/// Consolidation through one structured model call.
#[derive(Clone)]
pub struct ModelConsolidator {
    model: Arc<dyn ModelClient>,
}

impl ModelConsolidator {
    /// Consolidates with `model`.
    pub fn new(model: Arc<dyn ModelClient>) -> Self {
        Self { model }
    }
}

/// The rendered consolidation prompt for `input`.
pub fn consolidation_prompt(input: &ConsolidationInput) -> String {
    let root = input.memory_root.display().to_string();
    let mut raw = String::new();
    for output in &input.new_outputs {
        raw.push_str(&format!(
            "#### {}.md (thread {}, cwd {}, updated_at {})\n{}\n\n",
            stem_of(output),
            output.thread.id,
            output.thread.cwd.as_deref().unwrap_or("unknown"),
            rfc3339(output.source_updated_at),
            output.output.raw_memory.trim(),
        ));
    }
    if raw.is_empty() {
        raw.push_str("(none)\n");
    }
    render(
        CONSOLIDATION,
        &[
            ("memory_root", &root),
            ("mode", input.mode.as_str()),
            ("new_raw_memories", raw.trim_end()),
            (
                "current_memory",
                input
                    .current_memory
                    .as_deref()
                    .map_or("(none)", str::trim_end),
            ),
            (
                "current_summary",
                input
                    .current_summary
                    .as_deref()
                    .map_or("(none)", str::trim_end),
            ),
        ],
    )
}

#[async_trait]
impl Consolidator for ModelConsolidator {
    async fn consolidate(
        &self,
        input: &ConsolidationInput,
    ) -> Result<ConsolidationOutput, MemoryError> {
        let prompt = consolidation_prompt(input);
        let reply: ConsolidationReply =
            complete_structured(self.model.as_ref(), &prompt, CONSOLIDATION_REQUEST).await?;
        let skills = reply
            .skills
            .into_iter()
            .filter_map(|skill| {
                let name = skill_name(&skill.name)?;
                Some(SkillFile {
                    name,
                    content: redact_secrets(&skill.content),
                })
            })
            .collect();
        Ok(ConsolidationOutput {
            memory_md: Some(redact_secrets(&reply.memory_md)),
            memory_summary: Some(redact_secrets(&reply.memory_summary)),
            skills,
        })
    }
}

/// A skill name safe as one folder name (letters, digits, `-`, `_`; at most 64 characters);
/// `None` when nothing is left.
pub(crate) fn skill_name(name: &str) -> Option<String> {
    let cleaned: String = name
        .trim()
        .chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' {
                ch.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(MAX_SKILL_NAME_CHARS)
        .collect();
    let cleaned = cleaned.trim_matches('-').to_string();
    (!cleaned.is_empty()).then_some(cleaned)
}
