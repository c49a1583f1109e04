//! The loop driver's [`LoopAgent`] over a [`Session`]: `agentctx loop` drives a real session
//! through this file and nothing else (see docs/design/core.md, "The loop driver").
//!
//! `submit` starts [`Session::run_turn`] on its own task with a fresh cancellation token,
//! `wait_for_turn` joins it and maps the outcome to a [`TurnReport`] (a cancelled turn is
//! `Interrupted`, an error `Failed`), `current_history` reads [`Session::history`] and
//! `interrupt` fires the running turn's token. One session serves the whole loop, so the
//! iterations share the history, the file tracker and compaction.

use std::sync::Arc;
use std::sync::Mutex as StdMutex;

use agentctx_loop_driver::AgentError;
use agentctx_loop_driver::LoopAgent;
use agentctx_loop_driver::TurnReport;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use async_trait::async_trait;
use tokio::sync::Mutex;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::session::Session;

/// The reason a turn cancelled through [`LoopAgent::interrupt`] reports.
pub const TURN_CANCELLED: &str = "the turn was cancelled";

/// A [`Session`] the loop driver can drive.
pub struct SessionLoopAgent {
    session: Arc<Mutex<Session>>,
    turn: StdMutex<Option<RunningTurn>>,
}

struct RunningTurn {
    handle: JoinHandle<TurnReport>,
    cancel: CancellationToken,
}

impl std::fmt::Debug for SessionLoopAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionLoopAgent").finish_non_exhaustive()
    }
}

impl SessionLoopAgent {
    /// Drives `session`.
    pub fn new(session: Session) -> Self {
        Self {
            session: Arc::new(Mutex::new(session)),
            turn: StdMutex::new(None),
        }
    }

    /// The session (to read its rollout path or wait for its background work after the loop).
    pub fn session(&self) -> Arc<Mutex<Session>> {
        Arc::clone(&self.session)
    }

    fn running(&self) -> std::sync::MutexGuard<'_, Option<RunningTurn>> {
        self.turn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl LoopAgent for SessionLoopAgent {
    async fn submit(&self, prompt: &str) -> Result<(), AgentError> {
        let mut running = self.running();
        if running
            .as_ref()
            .is_some_and(|turn| !turn.handle.is_finished())
        {
            return Err(AgentError::new(
                "a turn is still running; wait for it before submitting another",
            ));
        }
        let cancel = CancellationToken::new();
        let session = Arc::clone(&self.session);
        let prompt = prompt.to_string();
        let token = cancel.clone();
        let handle = tokio::spawn(async move {
            let mut session = session.lock().await;
            let before = session.total_token_usage();
            let result = session.run_turn(&prompt, &token).await;
            let usage = usage_between(&before, &session.total_token_usage());
            match result {
                Ok(outcome) if outcome.aborted => TurnReport::interrupted(TURN_CANCELLED, usage),
                Ok(_) => TurnReport::completed(usage),
                Err(error) => TurnReport::failed(error.to_string(), usage),
            }
        });
        *running = Some(RunningTurn { handle, cancel });
        Ok(())
    }

    async fn wait_for_turn(&self) -> TurnReport {
        let turn = self.running().take();
        let Some(turn) = turn else {
            return TurnReport::failed("no turn was submitted", TokenUsage::default());
        };
        match turn.handle.await {
            Ok(report) => report,
            Err(error) => TurnReport::failed(
                format!("the turn's task ended abnormally: {error}"),
                TokenUsage::default(),
            ),
        }
    }

    async fn current_history(&self) -> Result<Vec<ResponseItem>, AgentError> {
        Ok(self.session.lock().await.history().to_vec())
    }

    async fn interrupt(&self) {
        if let Some(turn) = self.running().as_ref() {
            turn.cancel.cancel();
        }
    }
}

/// The tokens used between two readings of [`Session::total_token_usage`].
fn usage_between(before: &TokenUsage, after: &TokenUsage) -> TokenUsage {
    let diff = |a: i64, b: i64| (b - a).max(0);
    TokenUsage {
        input_tokens: diff(before.input_tokens, after.input_tokens),
        cached_input_tokens: diff(before.cached_input_tokens, after.cached_input_tokens),
        output_tokens: diff(before.output_tokens, after.output_tokens),
        reasoning_output_tokens: diff(
            before.reasoning_output_tokens,
            after.reasoning_output_tokens,
        ),
        total_tokens: diff(before.total_tokens, after.total_tokens),
    }
}

#[cfg(test)]
#[path = "loop_driver_ext_tests.rs"]
mod tests;
