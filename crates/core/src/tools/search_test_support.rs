//! A working directory and tool context for the search tools' tests.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::SystemTime;

use tokio_util::sync::CancellationToken;

use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use crate::approval::ApprovalPolicy;
use crate::approval::Approver;
use crate::session_state::SessionState;

/// A temporary project and a context whose working directory it is.
pub(crate) struct Project {
    _dir: tempfile::TempDir,
    pub(crate) cwd: PathBuf,
    pub(crate) ctx: ToolContext,
}

impl Project {
    pub(crate) fn new() -> Self {
        Self::with_approver(None)
    }

    pub(crate) fn with_approver(approver: Option<Arc<dyn Approver>>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("project");
        std::fs::create_dir_all(&cwd).unwrap();
        let cwd = cwd.canonicalize().unwrap();
        let ctx = ToolContext {
            cwd: cwd.clone(),
            home: dir.path().join("home"),
            plans_dir: dir.path().join("home").join("plans"),
            state: Arc::new(Mutex::new(SessionState::default())),
            approval: ApprovalPolicy::OnRequest,
            approver,
            observers: Vec::new(),
            events: None,
            cancel: CancellationToken::new(),
            subagents: None,
            turn: 1,
            call_approval: std::sync::Arc::default(),
        };
        Self {
            _dir: dir,
            cwd,
            ctx,
        }
    }

    /// Writes `content` to `relative`, creating its directories; `age` seconds old.
    pub(crate) fn file(&self, relative: &str, content: &str, age: u64) -> &Self {
        let path = self.cwd.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        set_age(&path, age);
        self
    }

    pub(crate) async fn call(&self, tool: &dyn ToolHandler, args: serde_json::Value) -> ToolOutput {
        tool.handle(&self.ctx, &args.to_string()).await
    }
}

fn set_age(path: &Path, age: u64) {
    let when = SystemTime::now() - Duration::from_secs(age);
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(when).unwrap();
}
