//! [`LoopContext`] and [`IterationRecord`]: what a loop knows across iterations, saved after
//! every iteration so an interrupted loop can be resumed. See docs/design/loop-driver.md,
//! "LoopContext".

use std::path::Path;
use std::path::PathBuf;

use chrono::DateTime;
use chrono::Utc;
use serde::Deserialize;
use serde::Serialize;

use crate::condition::LoopCondition;
use crate::outcome::LoopOutcome;
use agentctx_atomic_file::write_atomically;

/// How many characters of a commit id the prompt and the report show.
pub(crate) const SHORT_COMMIT_LEN: usize = 7;
/// How many changed files an iteration lists before "... (N more)".
pub(crate) const MAX_LISTED_FILES: usize = 5;

/// The state of a loop across its iterations.
///
/// The first five fields are the design's; the rest are the governance this crate adds (the
/// condition, usage against budgets, the outcome, the paths kept out of commits).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoopContext {
    /// HEAD when the loop started; empty when the repository had no commits yet.
    pub base_commit_id: String,
    /// The user's prompt, injected as the task of every iteration.
    pub initial_prompt: String,
    /// The plan the loop follows, when there is one.
    pub plan_content: Option<String>,
    /// Every finished iteration, in order.
    pub iterations: Vec<IterationRecord>,
    /// The number of iterations asked for, or -1 for a duration.
    pub total_iterations: i32,
    /// How long the loop runs.
    pub condition: LoopCondition,
    /// Tokens (and cost) the agent used so far.
    #[serde(default)]
    pub usage: LoopUsage,
    /// Milliseconds the loop has run, over every run of it.
    #[serde(default)]
    pub elapsed_ms: u64,
    /// Paths that had uncommitted changes before the loop started (allowed with
    /// `allow_dirty`): the user's work, which the loop never commits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded_paths: Vec<String>,
    /// Why the loop ended; `None` while it runs (or when it died without a word).
    #[serde(default)]
    pub outcome: Option<LoopOutcome>,
}

/// What the agent consumed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LoopUsage {
    /// Tokens of every agent turn (input plus output).
    pub total_tokens: i64,
    /// Their price in US dollars, when prices are configured.
    pub cost_usd: Option<f64>,
}

/// One finished iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IterationRecord {
    /// Its number, from 0.
    pub iteration: i32,
    /// The commit the driver made for it; `None` when nothing changed or the commit failed.
    pub commit_id: Option<String>,
    /// The files it changed, relative to the repository root.
    pub changed_files: Vec<String>,
    /// What it did, from the summariser (or the fallback built from the history).
    pub summary: String,
    /// Whether it succeeded: the turn completed and its changes were committed.
    pub success: bool,
    /// When it finished.
    pub timestamp: DateTime<Utc>,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// A fingerprint of its diff, for no-progress detection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_id: Option<String>,
    /// Tokens its turn used.
    #[serde(default)]
    pub tokens: i64,
}

/// A saved loop context that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ContextFileError {
    /// Reading or writing failed.
    #[error("cannot access the loop context {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a loop context.
    #[error("the loop context {path} is not valid: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
}

impl LoopContext {
    /// A context before its first iteration.
    pub fn new(
        base_commit_id: String,
        initial_prompt: String,
        plan_content: Option<String>,
        condition: LoopCondition,
    ) -> Self {
        Self {
            base_commit_id,
            initial_prompt,
            plan_content,
            iterations: Vec::new(),
            total_iterations: condition.total_iterations(),
            condition,
            usage: LoopUsage::default(),
            elapsed_ms: 0,
            excluded_paths: Vec::new(),
            outcome: None,
        }
    }

    /// Appends a finished iteration.
    pub fn add_iteration(&mut self, record: IterationRecord) {
        self.iterations.push(record);
    }

    /// The number of the next iteration.
    pub fn current_iteration(&self) -> i32 {
        i32::try_from(self.iterations.len()).unwrap_or(i32::MAX)
    }

    /// Iterations that succeeded.
    pub fn successful_iterations(&self) -> i32 {
        count(self.iterations.iter().filter(|r| r.success))
    }

    /// Iterations that failed.
    pub fn failed_iterations(&self) -> i32 {
        count(self.iterations.iter().filter(|r| !r.success))
    }

    /// The `<task_context>` block for iteration `current_iteration` (see
    /// [`crate::build_enhanced_prompt`]).
    pub fn format_for_prompt(&self, current_iteration: i32) -> String {
        crate::prompt::context_block(current_iteration, self)
    }

    /// Reads a saved context.
    pub fn load(path: &Path) -> Result<Self, ContextFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| ContextFileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| ContextFileError::Parse {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Saves the context atomically (a crash leaves the previous save, never a torn file).
    pub fn save(&self, path: &Path) -> Result<(), ContextFileError> {
        let io = |source| ContextFileError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut json =
            serde_json::to_vec_pretty(self).map_err(|source| ContextFileError::Parse {
                path: path.to_path_buf(),
                source,
            })?;
        json.push(b'\n');
        write_atomically(path, &json).map_err(io)
    }
}

impl IterationRecord {
    /// A record finished now.
    pub fn new(
        iteration: i32,
        commit_id: Option<String>,
        changed_files: Vec<String>,
        summary: String,
        success: bool,
    ) -> Self {
        Self {
            iteration,
            commit_id,
            changed_files,
            summary,
            success,
            timestamp: Utc::now(),
            failure: None,
            diff_id: None,
            tokens: 0,
        }
    }

    /// `commit abc1234`; `no changes` when it changed nothing; `not committed` when it changed
    /// files but they were not committed (the commit failed, or auto-commit is off).
    pub fn commit_status(&self) -> String {
        match &self.commit_id {
            Some(id) => format!("commit {}", short_commit(id)),
            None if self.changed_files.is_empty() => "no changes".to_owned(),
            None => "not committed".to_owned(),
        }
    }

    /// The changed files, at most five, then `... (N more)`; `none` for none.
    pub fn files_display(&self) -> String {
        if self.changed_files.is_empty() {
            return "none".to_owned();
        }
        let listed = self
            .changed_files
            .iter()
            .take(MAX_LISTED_FILES)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        match self.changed_files.len().checked_sub(MAX_LISTED_FILES) {
            Some(more) if more > 0 => format!("{listed}, ... ({more} more)"),
            _ => listed,
        }
    }
}

/// The first seven characters of a commit id (all of a shorter one).
pub(crate) fn short_commit(id: &str) -> String {
    id.chars().take(SHORT_COMMIT_LEN).collect()
}

fn count<'a>(records: impl Iterator<Item = &'a IterationRecord>) -> i32 {
    i32::try_from(records.count()).unwrap_or(i32::MAX)
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
