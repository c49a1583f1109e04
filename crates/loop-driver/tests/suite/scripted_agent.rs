//! A scripted [`LoopAgent`]: each turn applies scripted file edits to the repository and
//! appends a small conversation to the history, then ends as scripted.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use agentctx_loop_driver::AgentError;
use agentctx_loop_driver::LoopAgent;
use agentctx_loop_driver::TurnReport;
use agentctx_loop_driver::TurnStatus;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use async_trait::async_trait;

use agentctx_loop_driver::process::GitCommand;

use super::test_repo::TestRepo;
use super::test_repo::write_file;

/// One edit a turn makes.
#[derive(Debug, Clone)]
pub(crate) enum Edit {
    Write(&'static str, String),
    Remove(&'static str),
    Rename(&'static str, &'static str),
    /// `git add -A && git commit -m <message>`, as a disobedient agent would.
    Commit(&'static str),
}

/// One scripted turn.
#[derive(Debug, Clone)]
pub(crate) struct Turn {
    pub(crate) edits: Vec<Edit>,
    pub(crate) status: TurnStatus,
    pub(crate) tokens: i64,
    pub(crate) reply: String,
    pub(crate) submit_error: bool,
    /// Sleep this long (tokio time) before the turn ends.
    pub(crate) takes: Option<Duration>,
    /// Never end (until the loop cancels).
    pub(crate) hangs: bool,
}

impl Turn {
    pub(crate) fn edits(edits: Vec<Edit>) -> Self {
        Self {
            edits,
            status: TurnStatus::Completed,
            tokens: 1_000,
            reply: "Done.".to_owned(),
            submit_error: false,
            takes: None,
            hangs: false,
        }
    }

    pub(crate) fn write(path: &'static str, content: &str) -> Self {
        Self::edits(vec![Edit::Write(path, content.to_owned())])
    }

    pub(crate) fn nothing() -> Self {
        Self::edits(Vec::new())
    }

    pub(crate) fn failing(reason: &str) -> Self {
        Self {
            status: TurnStatus::Failed {
                reason: reason.to_owned(),
            },
            ..Self::nothing()
        }
    }

    pub(crate) fn with_status(mut self, status: TurnStatus) -> Self {
        self.status = status;
        self
    }

    pub(crate) fn with_reply(mut self, reply: &str) -> Self {
        self.reply = reply.to_owned();
        self
    }

    pub(crate) fn taking(mut self, duration: Duration) -> Self {
        self.takes = Some(duration);
        self
    }

    pub(crate) fn hanging() -> Self {
        Self {
            hangs: true,
            ..Self::nothing()
        }
    }

    pub(crate) fn submit_fails() -> Self {
        Self {
            submit_error: true,
            ..Self::nothing()
        }
    }
}

#[derive(Debug, Default)]
struct State {
    turns: VecDeque<Turn>,
    current: Option<Turn>,
    prompts: Vec<String>,
    history: Vec<ResponseItem>,
    interrupted: bool,
}

/// The scripted agent; clones share the script and what was recorded.
#[derive(Debug, Clone)]
pub(crate) struct ScriptedAgent {
    root: PathBuf,
    state: Arc<Mutex<State>>,
}

impl ScriptedAgent {
    pub(crate) fn new(root: &std::path::Path, turns: Vec<Turn>) -> Arc<Self> {
        Arc::new(Self {
            root: root.to_path_buf(),
            state: Arc::new(Mutex::new(State {
                turns: turns.into(),
                ..State::default()
            })),
        })
    }

    pub(crate) fn prompts(&self) -> Vec<String> {
        self.state.lock().unwrap().prompts.clone()
    }

    pub(crate) fn was_interrupted(&self) -> bool {
        self.state.lock().unwrap().interrupted
    }

    fn apply(&self, edits: &[Edit]) {
        for edit in edits {
            match edit {
                Edit::Write(path, content) => write_file(&self.root.join(path), content),
                Edit::Remove(path) => std::fs::remove_file(self.root.join(path)).unwrap(),
                Edit::Rename(from, to) => {
                    std::fs::rename(self.root.join(from), self.root.join(to)).unwrap();
                }
                Edit::Commit(message) => {
                    for args in [vec!["add", "-A"], vec!["commit", "--quiet", "-m", message]] {
                        GitCommand::new(&self.root)
                            .envs(TestRepo::env())
                            .args(args)
                            .run()
                            .unwrap();
                    }
                }
            }
        }
    }
}

#[async_trait]
impl LoopAgent for ScriptedAgent {
    async fn submit(&self, prompt: &str) -> Result<(), AgentError> {
        let mut state = self.state.lock().unwrap();
        state.prompts.push(prompt.to_owned());
        let turn = state.turns.pop_front();
        if turn.as_ref().is_some_and(|turn| turn.submit_error) {
            return Err(AgentError::new("the session is busy"));
        }
        state.history.push(ResponseItem::user_text(prompt));
        state.current = turn;
        Ok(())
    }

    async fn wait_for_turn(&self) -> TurnReport {
        let turn = self.state.lock().unwrap().current.take();
        let Some(turn) = turn else {
            return TurnReport::failed("the script is exhausted", TokenUsage::default());
        };
        if turn.hangs {
            std::future::pending::<()>().await;
        }
        if let Some(duration) = turn.takes {
            tokio::time::sleep(duration).await;
        }
        self.apply(&turn.edits);
        let mut state = self.state.lock().unwrap();
        let call_id = format!("call_{}", state.prompts.len());
        state.history.push(ResponseItem::function_call(
            call_id.clone(),
            "apply_patch",
            format!("{{\"files\":{}}}", turn.edits.len()),
        ));
        state
            .history
            .push(ResponseItem::function_call_output(call_id, "ok"));
        state
            .history
            .push(ResponseItem::assistant_text(turn.reply.clone()));
        TurnReport {
            status: turn.status,
            usage: TokenUsage {
                input_tokens: turn.tokens,
                total_tokens: turn.tokens,
                ..TokenUsage::default()
            },
        }
    }

    async fn current_history(&self) -> Result<Vec<ResponseItem>, AgentError> {
        Ok(self.state.lock().unwrap().history.clone())
    }

    async fn interrupt(&self) {
        self.state.lock().unwrap().interrupted = true;
    }
}

/// A driver on `repo` with the test's git isolation.
pub(crate) fn driver(
    repo: &super::test_repo::TestRepo,
    agent: Arc<ScriptedAgent>,
    model: &agentctx_model::ScriptedModelClient,
    config: agentctx_loop_driver::LoopConfig,
) -> agentctx_loop_driver::LoopDriver {
    agentctx_loop_driver::LoopDriver::new(config, agent, Arc::new(model.clone()), repo.path())
        .with_git_env(super::test_repo::TestRepo::env())
}
