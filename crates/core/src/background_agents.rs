//! Subagents running in the background (`task` with `run_in_background`): started without
//! waiting, announced to the parent when they end (the `async_agent_status` reminder), shown
//! as still running meanwhile (`task_progress`), and read with `agent_output`. See
//! docs/design/core.md, "Background agents".

use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use agentctx_protocol::BackgroundTask;
use agentctx_protocol::BackgroundTaskStatus;
use agentctx_protocol::BackgroundTaskType;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::SubagentRunner;
use crate::tools::ToolContext;

/// A wait with no practical end (a year): for a watcher that must see the agent end.
pub(crate) const NO_LIMIT: Duration = Duration::from_secs(365 * 24 * 3600);

/// Where a background agent stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AgentRun {
    /// Still working.
    Running,
    /// Ended with its final report.
    Completed(String),
    /// Ended with an error.
    Failed(String),
    /// Stopped before it ended (the session ended).
    Stopped,
}

impl AgentRun {
    /// The status the reminders name.
    fn status(&self) -> BackgroundTaskStatus {
        match self {
            Self::Running => BackgroundTaskStatus::Running,
            Self::Completed(_) => BackgroundTaskStatus::Completed,
            Self::Failed(_) => BackgroundTaskStatus::Failed,
            Self::Stopped => BackgroundTaskStatus::Killed,
        }
    }

    /// `running`, `completed`, `failed` or `stopped`.
    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Completed(_) => "completed",
            Self::Failed(_) => "failed",
            Self::Stopped => "stopped",
        }
    }
}

/// One subagent started in the background. Dropping it (the session ended) stops it.
#[derive(Debug)]
pub(crate) struct BackgroundAgent {
    /// The agent (`Explore`, `Plan`).
    pub(crate) agent: String,
    /// What it was asked to do, in a few words.
    pub(crate) description: String,
    started: Instant,
    run: watch::Receiver<AgentRun>,
    cancel: CancellationToken,
}

impl BackgroundAgent {
    /// Starts `agent` on `prompt` through `runner`, on its own: the parent's turn may end (or
    /// be cancelled) while it runs.
    pub(crate) fn start(
        runner: Arc<dyn SubagentRunner>,
        agent: &str,
        prompt: &str,
        description: &str,
        parent: &ToolContext,
    ) -> Self {
        let cancel = CancellationToken::new();
        let (report, run) = watch::channel(AgentRun::Running);
        let ctx = ToolContext {
            cancel: cancel.clone(),
            ..parent.clone()
        };
        let (name, task) = (agent.to_owned(), prompt.to_owned());
        let stop = cancel.clone();
        tokio::spawn(async move {
            let ended = tokio::select! {
                result = runner.run(&name, &task, &ctx) => match result {
                    Ok(text) => AgentRun::Completed(text),
                    Err(err) => AgentRun::Failed(err),
                },
                () = stop.cancelled() => AgentRun::Stopped,
            };
            // Nobody listens once the session is gone.
            let _ = report.send(ended);
        });
        Self {
            agent: agent.to_owned(),
            description: description.to_owned(),
            started: Instant::now(),
            run,
            cancel,
        }
    }

    /// Where it stands now.
    pub(crate) fn state(&self) -> AgentRun {
        self.run.borrow().clone()
    }

    /// A handle that waits for it without borrowing it (so the session's state is not held
    /// while a tool waits).
    pub(crate) fn waiter(&self) -> AgentWaiter {
        AgentWaiter(self.run.clone())
    }

    /// How long it has run.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The task as the reminders see it: an async agent, its status, and while it runs a
    /// progress line.
    pub(crate) fn background_task(&self, id: &str) -> BackgroundTask {
        let state = self.state();
        let delta_summary = match &state {
            AgentRun::Failed(error) => Some(error.clone()),
            _ => None,
        };
        let progress_message = (state == AgentRun::Running).then(|| {
            format!(
                "Async agent {id} ({}: {}) is still running ({} s so far); its end will be announced, or read its report with agent_output.",
                self.agent,
                self.description,
                self.elapsed().as_secs()
            )
        });
        BackgroundTask {
            task_id: id.to_owned(),
            task_type: BackgroundTaskType::AsyncAgent,
            command: None,
            description: self.description.clone(),
            status: state.status(),
            exit_code: None,
            output_len: 0,
            delta_summary,
            progress_message,
        }
    }
}

/// Waits for a background agent to end.
#[derive(Debug, Clone)]
pub(crate) struct AgentWaiter(watch::Receiver<AgentRun>);

impl AgentWaiter {
    /// Where it stands now.
    pub(crate) fn state(&self) -> AgentRun {
        self.0.borrow().clone()
    }

    /// Waits up to `timeout` for it to end; where it stands then.
    pub(crate) async fn wait(&self, timeout: Duration) -> AgentRun {
        let mut run = self.0.clone();
        match tokio::time::timeout(timeout, run.wait_for(|state| *state != AgentRun::Running)).await
        {
            Ok(Ok(state)) => state.clone(),
            // The task is gone without a word (it panicked).
            Ok(Err(_)) => AgentRun::Failed("the agent stopped without a report".to_owned()),
            Err(_) => AgentRun::Running,
        }
    }
}

impl Drop for BackgroundAgent {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}
