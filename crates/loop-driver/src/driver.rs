//! [`LoopDriver`]: runs the iterations. Each one: build the prompt, submit it, wait for the
//! turn, read the history, collect the changed files, summarise, commit, record, save. See
//! docs/design/loop-driver.md, "An iteration".

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use agentctx_model::ModelClient;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::agent::LoopAgent;
use crate::agent::TurnReport;
use crate::agent::TurnStatus;
use crate::condition::LoopCondition;
use crate::config::CommitFailurePolicy;
use crate::config::LoopConfig;
use crate::context::ContextFileError;
use crate::context::IterationRecord;
use crate::context::LoopContext;
use crate::git_ops::GitError;
use crate::git_ops::GitRepo;
use crate::git_ops::paths_of;
use crate::governance::consecutive_failures;
use crate::governance::exhausted_budget;
use crate::governance::no_progress_streak;
use crate::outcome::LoopOutcome;
use crate::outcome::LoopProgress;
use crate::outcome::LoopResult;
use crate::prompt::build_enhanced_prompt;
use crate::summariser::Summariser;
use crate::summariser::fallback_commit_message;

/// Where the loop context is saved, relative to the work tree's git folder.
pub const CONTEXT_FILE: &str = "agentctx/loop-context.json";

/// Why a loop could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// A git operation failed before the loop started.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The work tree has uncommitted changes and `allow_dirty` is off.
    #[error(
        "the work tree has uncommitted changes ({}); commit or stash them, or allow a dirty tree (--allow-dirty) and they will be left out of every loop commit",
        files.join(", ")
    )]
    DirtyTree {
        /// The changed paths.
        files: Vec<String>,
    },
    /// A loop that did not finish is saved there; resume it, or discard it first.
    #[error(
        "an unfinished loop is saved in {path}: resume it or discard it before starting another"
    )]
    UnfinishedLoop {
        /// The saved context.
        path: PathBuf,
    },
    /// No loop is saved there.
    #[error("no loop to resume: {path} does not exist")]
    NothingToResume {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The saved loop already completed.
    #[error("the loop saved in {path} already completed")]
    AlreadyCompleted {
        /// The saved context.
        path: PathBuf,
    },
    /// The saved context cannot be read or written.
    #[error(transparent)]
    Context(#[from] ContextFileError),
    /// The condition asks for no iterations.
    #[error("the loop condition {0} asks for no iterations")]
    EmptyCondition(LoopCondition),
    /// A cost budget was set but no prices are configured.
    #[error("budget.max_cost_usd needs [loop.prices]: the cost of tokens is unknown without them")]
    CostBudgetWithoutPrices,
    /// A git task could not be joined (the runtime is shutting down).
    #[error("the git task did not finish: {0}")]
    Join(String),
}

/// What the driver reports while it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum LoopProgressEvent {
    /// An iteration starts.
    IterationStarted {
        /// Its number, from 0.
        iteration: i32,
    },
    /// An iteration finished and was saved.
    IterationFinished {
        /// Its record.
        record: IterationRecord,
        /// The totals so far.
        progress: LoopProgress,
    },
    /// The loop ended.
    Finished {
        /// Why.
        outcome: LoopOutcome,
    },
}

/// A callback for progress events.
pub type ProgressCallback = Box<dyn Fn(&LoopProgressEvent) + Send + Sync>;

/// Runs an agent for many iterations with framework-owned commits.
pub struct LoopDriver {
    config: LoopConfig,
    agent: Arc<dyn LoopAgent>,
    summariser: Summariser,
    repo_path: PathBuf,
    context_path: Option<PathBuf>,
    plan_content: Option<String>,
    allow_dirty: bool,
    git_env: Vec<(OsString, OsString)>,
    progress: Option<ProgressCallback>,
}

impl std::fmt::Debug for LoopDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopDriver")
            .field("config", &self.config)
            .field("summariser", &self.summariser)
            .field("repo_path", &self.repo_path)
            .field("context_path", &self.context_path)
            .field("allow_dirty", &self.allow_dirty)
            .finish_non_exhaustive()
    }
}

/// What one iteration asks of the loop after it is recorded.
enum IterationStop {
    Cancelled,
    Interrupted(String),
    CommitFailed(String),
}

impl LoopDriver {
    /// A driver for the repository containing `repo`, driving `agent`, with `summariser_model`
    /// writing summaries and commit messages.
    pub fn new(
        config: LoopConfig,
        agent: Arc<dyn LoopAgent>,
        summariser_model: Arc<dyn ModelClient>,
        repo: impl Into<PathBuf>,
    ) -> Self {
        let summariser =
            Summariser::new(summariser_model, config.context_passing.summary_max_tokens)
                .with_model_summaries(config.context_passing.generate_summary);
        Self {
            config,
            agent,
            summariser,
            repo_path: repo.into(),
            context_path: None,
            plan_content: None,
            allow_dirty: false,
            git_env: Vec::new(),
            progress: None,
        }
    }

    /// Commit messages through `model` (the host resolves `commit_message_model` to it).
    pub fn with_commit_message_model(mut self, model: Arc<dyn ModelClient>) -> Self {
        self.summariser = self.summariser.with_commit_message_model(model);
        self
    }

    /// Starts even when the work tree has uncommitted changes; those paths are left out of
    /// every commit the loop makes.
    pub fn allow_dirty(mut self, allow: bool) -> Self {
        self.allow_dirty = allow;
        self
    }

    /// Saves the context at `path` instead of `<git dir>/agentctx/loop-context.json`.
    pub fn with_context_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.context_path = Some(path.into());
        self
    }

    /// Uses this plan (e.g. one forked from a plan-mode session) instead of looking for the
    /// newest plan file.
    pub fn with_plan_content(mut self, plan: impl Into<String>) -> Self {
        self.plan_content = Some(plan.into());
        self
    }

    /// Sets these variables on every git child process (never on this process).
    pub fn with_git_env<K, V>(mut self, envs: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<OsString>,
        V: Into<OsString>,
    {
        self.git_env
            .extend(envs.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }

    /// Calls `callback` with every progress event.
    pub fn on_progress(
        mut self,
        callback: impl Fn(&LoopProgressEvent) + Send + Sync + 'static,
    ) -> Self {
        self.progress = Some(Box::new(callback));
        self
    }

    /// Where the context of this repository's loop is saved.
    pub async fn context_path(&self) -> Result<PathBuf, LoopError> {
        if let Some(path) = &self.context_path {
            return Ok(path.clone());
        }
        let repo = self.repo().await?;
        let git_dir = blocking(move || repo.git_dir()).await??;
        Ok(git_dir.join(CONTEXT_FILE))
    }

    /// The saved context, if there is one.
    pub async fn saved_context(&self) -> Result<Option<LoopContext>, LoopError> {
        let path = self.context_path().await?;
        if !path.exists() {
            return Ok(None);
        }
        Ok(Some(LoopContext::load(&path)?))
    }

    /// Deletes the saved context (to start afresh after an unfinished loop).
    pub async fn discard_saved(&self) -> Result<(), LoopError> {
        let path = self.context_path().await?;
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(ContextFileError::Io { path, source }.into()),
        }
    }

    /// Runs a new loop of `prompt` until `condition` is met, a budget or a limit stops it, or
    /// `cancel` fires. Refuses a dirty tree (unless allowed) and a saved unfinished loop.
    pub async fn run(
        &self,
        condition: LoopCondition,
        prompt: &str,
        cancel: CancellationToken,
    ) -> Result<LoopResult, LoopError> {
        self.validate(condition)?;
        let repo = self.repo().await?;
        let path = self.context_path().await?;
        if path.exists() {
            let saved = LoopContext::load(&path)?;
            if saved.outcome.is_none() {
                return Err(LoopError::UnfinishedLoop { path });
            }
        }
        let excluded = self.check_clean(&repo).await?;
        let head = {
            let repo = repo.clone();
            blocking(move || repo.head_commit()).await??
        };
        let plan = match &self.plan_content {
            Some(plan) => Some(plan.clone()),
            None => {
                let (repo, dirs) = (repo.clone(), self.config.plan_dirs.clone());
                blocking(move || repo.latest_plan_file(&dirs))
                    .await?
                    .map(|plan| plan.content)
            }
        };
        let mut context =
            LoopContext::new(head.unwrap_or_default(), prompt.to_owned(), plan, condition);
        context.excluded_paths = excluded;
        context.save(&path)?;
        tracing::info!(%condition, path = %path.display(), "starting loop");
        Ok(self.drive(&repo, context, &path, &cancel).await)
    }

    /// Resumes the saved loop where it stopped (after a crash, a cancellation, an interruption
    /// or a budget raised since). Usage and elapsed time carry over.
    pub async fn resume(&self, cancel: CancellationToken) -> Result<LoopResult, LoopError> {
        let repo = self.repo().await?;
        let path = self.context_path().await?;
        if !path.exists() {
            return Err(LoopError::NothingToResume { path });
        }
        let mut context = LoopContext::load(&path)?;
        if context.outcome == Some(LoopOutcome::Completed) {
            return Err(LoopError::AlreadyCompleted { path });
        }
        self.validate(context.condition)?;
        let excluded = self.check_clean(&repo).await?;
        for path in excluded {
            if !context.excluded_paths.contains(&path) {
                context.excluded_paths.push(path);
            }
        }
        context.outcome = None;
        context.save(&path)?;
        tracing::info!(
            iteration = context.current_iteration(),
            path = %path.display(),
            "resuming loop"
        );
        Ok(self.drive(&repo, context, &path, &cancel).await)
    }

    fn validate(&self, condition: LoopCondition) -> Result<(), LoopError> {
        let empty = match condition {
            LoopCondition::Iters { count } => count <= 0,
            LoopCondition::Duration { seconds } => seconds == 0,
        };
        if empty {
            return Err(LoopError::EmptyCondition(condition));
        }
        if self.config.budget.max_cost_usd.is_some() && self.config.prices.is_none() {
            return Err(LoopError::CostBudgetWithoutPrices);
        }
        Ok(())
    }

    async fn repo(&self) -> Result<GitRepo, LoopError> {
        let (path, envs) = (self.repo_path.clone(), self.git_env.clone());
        Ok(blocking(move || GitRepo::discover(&path, envs)).await??)
    }

    /// The paths with uncommitted changes, which must be none unless a dirty tree is allowed.
    async fn check_clean(&self, repo: &GitRepo) -> Result<Vec<String>, LoopError> {
        let repo = repo.clone();
        let changes = blocking(move || repo.uncommitted_changes()).await??;
        let files = paths_of(&changes);
        if !files.is_empty() && !self.allow_dirty {
            return Err(LoopError::DirtyTree { files });
        }
        Ok(files)
    }

    async fn drive(
        &self,
        repo: &GitRepo,
        mut context: LoopContext,
        path: &std::path::Path,
        cancel: &CancellationToken,
    ) -> LoopResult {
        let started = Instant::now();
        let elapsed_before = context.elapsed_ms;
        let elapsed_ms = |started: Instant| {
            elapsed_before
                .saturating_add(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX))
        };
        let outcome = loop {
            let elapsed = std::time::Duration::from_millis(elapsed_ms(started));
            if cancel.is_cancelled() {
                break LoopOutcome::Cancelled;
            }
            let done = match context.condition {
                LoopCondition::Iters { count } => context.current_iteration() >= count,
                LoopCondition::Duration { seconds } => elapsed.as_secs() >= seconds,
            };
            if done {
                break LoopOutcome::Completed;
            }
            if let Some(which) = exhausted_budget(&self.config, &context, elapsed) {
                break LoopOutcome::BudgetExhausted { which };
            }
            let iteration = context.current_iteration();
            self.emit(&LoopProgressEvent::IterationStarted { iteration });
            let (record, stop, usage) = self.iteration(repo, &context, iteration, cancel).await;
            context.usage.total_tokens = context.usage.total_tokens.saturating_add(record.tokens);
            if let Some(prices) = &self.config.prices {
                let spent = context.usage.cost_usd.unwrap_or(0.0) + prices.cost_usd(&usage);
                context.usage.cost_usd = Some(spent);
            }
            context.add_iteration(record.clone());
            context.elapsed_ms = elapsed_ms(started);
            self.save(&context, path);
            self.emit(&LoopProgressEvent::IterationFinished {
                record,
                progress: progress_of(&context),
            });
            match stop {
                Some(IterationStop::Cancelled) => break LoopOutcome::Cancelled,
                Some(IterationStop::Interrupted(reason)) => {
                    break LoopOutcome::Interrupted { reason };
                }
                Some(IterationStop::CommitFailed(error)) => {
                    break LoopOutcome::CommitFailed { error };
                }
                None => {}
            }
            let failures = consecutive_failures(&context.iterations);
            let limit = self.config.max_consecutive_failures;
            if limit > 0 && failures >= limit {
                break LoopOutcome::TooManyFailures {
                    consecutive: failures,
                };
            }
            let stalled = no_progress_streak(&context.iterations);
            let limit = self.config.no_progress_iterations;
            if limit > 0 && stalled >= limit {
                break LoopOutcome::NoProgress {
                    iterations: stalled,
                };
            }
        };
        context.elapsed_ms = elapsed_ms(started);
        context.outcome = Some(outcome.clone());
        self.save(&context, path);
        tracing::info!(%outcome, "loop ended");
        self.emit(&LoopProgressEvent::Finished {
            outcome: outcome.clone(),
        });
        let progress = progress_of(&context);
        LoopResult {
            iterations_attempted: progress.iteration,
            iterations_succeeded: progress.succeeded,
            iterations_failed: progress.failed,
            outcome,
            elapsed_seconds: progress.elapsed_seconds,
            context,
        }
    }

    /// Saves after an iteration. A failed save is logged, not fatal: the loop's commits are the
    /// durable record, and stopping here would lose the iteration in flight too.
    fn save(&self, context: &LoopContext, path: &std::path::Path) {
        if let Err(error) = context.save(path) {
            tracing::error!(%error, "cannot save the loop context; the loop goes on");
        }
    }

    fn emit(&self, event: &LoopProgressEvent) {
        if let Some(callback) = &self.progress {
            callback(event);
        }
    }

    async fn iteration(
        &self,
        repo: &GitRepo,
        context: &LoopContext,
        iteration: i32,
        cancel: &CancellationToken,
    ) -> (IterationRecord, Option<IterationStop>, TokenUsage) {
        let failed = |reason: String| {
            tracing::warn!(iteration, %reason, "iteration failed");
            let mut record =
                IterationRecord::new(iteration, None, Vec::new(), reason.clone(), false);
            record.failure = Some(reason);
            (record, None, TokenUsage::default())
        };
        if let Err(error) = self.agent.begin_iteration(iteration).await {
            return failed(format!("the agent could not start the iteration: {error}"));
        }
        let history_before = match self.agent.current_history().await {
            Ok(history) => history.len(),
            Err(error) => {
                tracing::warn!(%error, "cannot read the history before the turn");
                0
            }
        };
        // `None`: unknown, and then commits the agent made are not looked for.
        let head_before = {
            let repo = repo.clone();
            match blocking(move || repo.head_commit())
                .await
                .map_err(GitError::from)
            {
                Ok(Ok(head)) => Some(head),
                Ok(Err(error)) | Err(error) => {
                    tracing::warn!(%error, "cannot read HEAD before the turn");
                    None
                }
            }
        };
        let prompt = if self.config.context_passing.enabled {
            build_enhanced_prompt(&context.initial_prompt, iteration, context)
        } else {
            context.initial_prompt.clone()
        };
        if let Err(error) = self.agent.submit(&prompt).await {
            return failed(format!("the prompt could not be submitted: {error}"));
        }
        let report = tokio::select! {
            report = self.agent.wait_for_turn() => report,
            () = cancel.cancelled() => {
                self.agent.interrupt().await;
                TurnReport::interrupted("cancelled", TokenUsage::default())
            }
        };
        let cancelled = cancel.is_cancelled();
        let history = match self.agent.current_history().await {
            Ok(history) => turn_items(history, history_before),
            Err(error) => {
                tracing::warn!(%error, "cannot read the history after the turn");
                Vec::new()
            }
        };
        let (mut record, stop) = self
            .record_changes(
                repo,
                context,
                iteration,
                head_before,
                &report,
                &history,
                cancelled,
            )
            .await;
        record.tokens = report.usage.total_tokens.max(
            report
                .usage
                .input_tokens
                .saturating_add(report.usage.output_tokens),
        );
        let stop = match (&report.status, stop) {
            _ if cancelled => Some(IterationStop::Cancelled),
            (TurnStatus::Interrupted { reason }, _) => {
                Some(IterationStop::Interrupted(reason.clone()))
            }
            (_, stop) => stop,
        };
        (record, stop, report.usage)
    }

    /// Collects the files the turn changed, summarises, commits and builds the record.
    #[expect(
        clippy::too_many_arguments,
        reason = "one iteration's state, passed once from one caller"
    )]
    async fn record_changes(
        &self,
        repo: &GitRepo,
        context: &LoopContext,
        iteration: i32,
        head_before: Option<Option<String>>,
        report: &TurnReport,
        history: &[ResponseItem],
        cancelled: bool,
    ) -> (IterationRecord, Option<IterationStop>) {
        let mut failure = match &report.status {
            TurnStatus::Completed => None,
            TurnStatus::Failed { reason } => Some(format!("the turn failed: {reason}")),
            TurnStatus::Interrupted { reason } => {
                Some(format!("the turn was interrupted: {reason}"))
            }
        };
        // A stopping loop does not wait for a model: the summary comes from the history.
        let stopping = cancelled || matches!(report.status, TurnStatus::Interrupted { .. });
        let summary = if stopping {
            self.summariser.summarize_without_model(history).text
        } else {
            self.summariser.summarize_iteration(history).await.text
        };
        let listed = {
            let (repo, before) = (repo.clone(), head_before.clone());
            blocking(move || -> Result<_, GitError> {
                let changes = repo.uncommitted_changes()?;
                // The agent was told not to commit; when it did anyway, its commits are this
                // iteration's work all the same and must not read as "no changes".
                let head_after = repo.head_commit()?;
                let agent_commit = match (before, head_after) {
                    (Some(before), Some(after)) if before.as_ref() != Some(&after) => {
                        let files = repo.changed_files_since(before.as_deref())?;
                        Some((after, files))
                    }
                    _ => None,
                };
                Ok((changes, agent_commit))
            })
            .await
            .map_err(GitError::from)
            .and_then(|result| result)
        };
        let (changes, agent_commit) = match listed {
            Ok(listed) => listed,
            Err(error) => {
                add_failure(
                    &mut failure,
                    format!("cannot list the changed files: {error}"),
                );
                let mut record = IterationRecord::new(iteration, None, Vec::new(), summary, false);
                record.failure = failure;
                return (record, None);
            }
        };
        // The user's own uncommitted work (allowed with `allow_dirty`) never enters a commit.
        let files: Vec<String> = paths_of(&changes)
            .into_iter()
            .filter(|path| !context.excluded_paths.contains(path))
            .collect();
        let mut commit_id = None;
        let mut diff_id = None;
        let mut stop = None;
        if !files.is_empty() {
            let message = if !self.config.context_passing.auto_commit {
                None
            } else if stopping {
                Some(fallback_commit_message(iteration, &summary))
            } else {
                Some(
                    self.summariser
                        .commit_message(iteration, &context.initial_prompt, &files, &summary)
                        .await
                        .text,
                )
            };
            let (repo, paths) = (repo.clone(), files.clone());
            let committed = blocking(move || -> Result<_, GitError> {
                repo.stage(&paths)?;
                let diff_id = repo.staged_diff_id(&paths)?;
                let commit = match message {
                    Some(message) => repo.commit_paths(&message, &paths),
                    None => Ok(None),
                };
                Ok((diff_id, commit))
            })
            .await
            .map_err(GitError::from)
            .and_then(|result| result);
            match committed {
                Ok((id, commit)) => {
                    diff_id = Some(id);
                    match commit {
                        Ok(commit) => commit_id = commit,
                        Err(error) => {
                            if self.config.on_commit_failure == CommitFailurePolicy::Stop {
                                stop = Some(IterationStop::CommitFailed(error.to_string()));
                            }
                            add_failure(&mut failure, format!("the commit failed: {error}"));
                        }
                    }
                }
                Err(error) => {
                    add_failure(&mut failure, format!("cannot stage the changes: {error}"));
                }
            }
        }
        let mut all_files = files;
        if let Some((agent_head, agent_files)) = agent_commit {
            tracing::warn!(iteration, commit = %agent_head, "the agent committed by itself");
            commit_id = commit_id.or(Some(agent_head));
            for file in agent_files {
                if !all_files.contains(&file) {
                    all_files.push(file);
                }
            }
        }
        let mut record =
            IterationRecord::new(iteration, commit_id, all_files, summary, failure.is_none());
        record.failure = failure;
        record.diff_id = diff_id;
        (record, stop)
    }
}

/// Adds `reason` to what already went wrong in an iteration.
fn add_failure(failure: &mut Option<String>, reason: String) {
    *failure = Some(match failure.take() {
        Some(earlier) => format!("{earlier}; {reason}"),
        None => reason,
    });
}

/// The items a turn added: those after the first `before`, or the whole history when it
/// shrank (a compaction rewrote it during the turn).
fn turn_items(mut history: Vec<ResponseItem>, before: usize) -> Vec<ResponseItem> {
    if history.len() >= before {
        history.split_off(before)
    } else {
        history
    }
}

fn progress_of(context: &LoopContext) -> LoopProgress {
    LoopProgress {
        iteration: context.current_iteration(),
        succeeded: context.successful_iterations(),
        failed: context.failed_iterations(),
        elapsed_seconds: i64::try_from(context.elapsed_ms / 1_000).unwrap_or(i64::MAX),
        total_tokens: context.usage.total_tokens,
    }
}

/// Runs blocking git work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, LoopError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| LoopError::Join(error.to_string()))
}

impl From<LoopError> for GitError {
    fn from(error: LoopError) -> Self {
        match error {
            LoopError::Git(error) => error,
            other => GitError::Task(other.to_string()),
        }
    }
}
