//! Tools: the [`ToolHandler`] trait, the [`ToolRegistry`] a fork extends, and the context a
//! call runs in.
//!
//! A tool gets its arguments as the raw JSON string the model wrote and answers with a
//! [`ToolOutput`]; a failure is an output with `success: false` the model reads, never an
//! error that stops the turn. Tools that only read say so ([`ToolHandler::parallel_safe`]) and
//! run concurrently when every call of a response is such a tool. See docs/design/core.md,
//! "Tools".

mod agent_output;
mod ask_user;
mod call_approval;
mod edit_file;
mod glob;
mod grep;
mod list_dir;
mod plan_mode;
mod read_file;
mod recall;
#[cfg(test)]
mod search_test_support;
mod search_walk;
mod shell;
mod task;
mod todo_write;
mod write_file;

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::MutexGuard;

use agentctx_compact::ToolClasses;
use agentctx_model::ToolSpec;
use async_trait::async_trait;
use serde::de::DeserializeOwned;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

pub(crate) use agent_output::AgentOutputTool;
pub(crate) use ask_user::AskUserTool;
pub(crate) use call_approval::CallApproval;
pub(crate) use call_approval::updated_arguments;
pub(crate) use edit_file::EditFileTool;
pub(crate) use glob::GlobTool;
pub(crate) use grep::GrepTool;
pub(crate) use list_dir::ListDirTool;
pub(crate) use plan_mode::EnterPlanModeTool;
pub(crate) use plan_mode::ExitPlanModeTool;
pub(crate) use plan_mode::enter_plan_mode;
pub(crate) use plan_mode::plan_file_from_output;
pub(crate) use read_file::ReadFileTool;
pub(crate) use recall::RecallTool;
pub(crate) use shell::BashOutputTool;
pub(crate) use shell::KillShellTool;
pub(crate) use shell::ShellTool;
pub(crate) use task::TaskTool;
pub(crate) use todo_write::TodoWriteTool;
pub(crate) use write_file::WriteFileTool;

use crate::approval::ApprovalAnswer;
use crate::approval::ApprovalDecision;
use crate::approval::ApprovalPolicy;
use crate::approval::ApprovalRequest;
use crate::approval::Approver;
use crate::event::SessionEvent;
use crate::path_guard::resolve_in_cwd;
use crate::path_guard::resolve_readable;
use crate::session_state::SessionState;
use crate::subagent::SubagentRunner;

/// What a tool call returns to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// The text the model reads.
    pub text: String,
    /// Whether the call did what was asked.
    pub success: bool,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            success: true,
        }
    }

    /// A failed call; the text says why, for the model.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            success: false,
        }
    }
}

pub(crate) use agentctx_compact::ToolClass;
pub(crate) use agentctx_engine::FileObserver;

/// Everything a tool call may use.
#[derive(Clone)]
pub struct ToolContext {
    /// The working directory; file tools stay inside it.
    pub cwd: PathBuf,
    /// The agentctx home (a subagent's engine keeps its state under it).
    pub home: PathBuf,
    /// The session's plans folder: plan mode's plan file is created in it.
    pub plans_dir: PathBuf,
    /// The session's own state.
    pub state: Arc<Mutex<SessionState>>,
    /// When to ask before shell commands and writes.
    pub approval: ApprovalPolicy,
    /// Who answers.
    pub approver: Option<Arc<dyn Approver>>,
    /// Told about reads and writes.
    pub observers: Vec<Arc<dyn FileObserver>>,
    /// Events out.
    pub events: Option<UnboundedSender<SessionEvent>>,
    /// Fires when the turn is cancelled.
    pub cancel: CancellationToken,
    /// Runs subagents for the `task` tool.
    pub subagents: Option<Arc<dyn SubagentRunner>>,
    /// The session's model request number (the reminders' clock: file reads and todo writes
    /// are stamped with it).
    pub turn: i32,
    /// The approval of the call running in this context: each call gets its own
    /// ([`ToolRegistry::dispatch`]).
    pub(crate) call_approval: Arc<CallApproval>,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("cwd", &self.cwd)
            .field("home", &self.home)
            .field("plans_dir", &self.plans_dir)
            .field("approval", &self.approval)
            .field("turn", &self.turn)
            .finish_non_exhaustive()
    }
}

/// Claude Code's names for our tools, `(Claude Code's, ours)`: a skill's `allowed-tools`, a hook's
/// matcher (`Write`, `Bash`, `Grep|Glob`) and a hook script (`.tool_name == "Write"`) written for
/// Claude Code work unchanged. The first row of each of our tools is the name hooks see; later
/// rows are names Claude Code also used for it (`KillBash`, `MultiEdit`).
pub(crate) const CLAUDE_CODE_TOOL_NAMES: [(&str, &str); 17] = [
    ("Bash", "shell"),
    ("BashOutput", "bash_output"),
    ("KillShell", "kill_shell"),
    ("KillBash", "kill_shell"),
    ("Read", "read_file"),
    ("Write", "write_file"),
    ("Edit", "edit_file"),
    ("MultiEdit", "edit_file"),
    ("Grep", "grep"),
    ("Glob", "glob"),
    ("LS", "list_dir"),
    ("TodoWrite", "todo_write"),
    ("Task", "task"),
    ("AskUserQuestion", "ask_user"),
    ("Skill", "skill"),
    ("EnterPlanMode", "enter_plan_mode"),
    ("ExitPlanMode", "exit_plan_mode"),
];

/// The Claude Code name of our tool `name`, when it has one.
pub(crate) fn claude_code_name(name: &str) -> Option<&'static str> {
    CLAUDE_CODE_TOOL_NAMES
        .iter()
        .find(|(_, ours)| *ours == name)
        .map(|(claude, _)| *claude)
}

/// Our tool that Claude Code's `name` (compared ignoring ASCII case) stands for.
pub(crate) fn tool_of_claude_code_name(name: &str) -> Option<&'static str> {
    CLAUDE_CODE_TOOL_NAMES
        .iter()
        .find(|(claude, _)| claude.eq_ignore_ascii_case(name))
        .map(|(_, ours)| *ours)
}

impl ToolContext {
    /// The session state, even when a panicking holder poisoned the lock (the state is plain
    /// data and stays usable).
    pub fn state(&self) -> MutexGuard<'_, SessionState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Resolves a path from the model inside the working directory (the plan file is also
    /// allowed), or the tool error to return.
    pub fn resolve_path(&self, raw: &str) -> Result<PathBuf, ToolOutput> {
        let plan_file = self.state().plan.plan_file.clone();
        resolve_in_cwd(&self.cwd, plan_file.as_slice(), raw)
            .map_err(|escape| ToolOutput::error(format!("Error: {escape}")))
    }

    /// The session's folders outside the working directory that the read-only tools
    /// (`read_file`, `grep`, `glob`, `list_dir`) may read: the tool results micro-compaction
    /// persisted (`<home>/tool-results`, named by the markers it leaves) and the memory folder
    /// (`<home>/memories`, named by the memory summary). Nothing may write there.
    pub fn readable_dirs(&self) -> Vec<PathBuf> {
        vec![
            self.home.join(agentctx_compact::TOOL_RESULTS_DIR),
            self.home.join(agentctx_memory::MEMORIES_DIR),
        ]
    }

    /// Resolves a path from the model for a tool that only reads: inside the working directory
    /// (the plan file is also allowed) or inside one of [`ToolContext::readable_dirs`], or the
    /// tool error to return.
    pub fn resolve_readable_path(&self, raw: &str) -> Result<PathBuf, ToolOutput> {
        let plan_file = self.state().plan.plan_file.clone();
        let readable = self.readable_dirs();
        resolve_readable(&self.cwd, plan_file.as_slice(), &readable, raw)
            .map_err(|escape| ToolOutput::error(format!("Error: {escape}")))
    }

    /// The refusal a write to `path` gets in plan mode, if any.
    pub fn plan_mode_refusal(&self, path: &Path) -> Option<ToolOutput> {
        let state = self.state();
        if !state.plan.active || state.plan.plan_file.as_deref() == Some(path) {
            return None;
        }
        let plan = state
            .plan
            .plan_file
            .as_ref()
            .map_or_else(String::new, |file| {
                format!(" You may only write the plan file {}.", file.display())
            });
        Some(ToolOutput::error(format!(
            "Error: plan mode is on, so {} cannot be changed.{plan} Call exit_plan_mode to present the plan first.",
            path.display()
        )))
    }

    /// Asks for approval under the session's policy; a call a hook approved before it ran is
    /// approved without asking (unless the policy is [`ApprovalPolicy::Never`]).
    pub async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        if self.approval != ApprovalPolicy::Never && self.call_approval.is_approved() {
            return ApprovalDecision::Approved;
        }
        let answer = crate::approval::check(self.approval, self.approver.as_deref(), request).await;
        match answer {
            // Approved with other input: this run stops, the registry runs the call again.
            ApprovalAnswer {
                decision: ApprovalDecision::Approved,
                updated_input: Some(input),
                ..
            } => {
                self.call_approval.rerun_with(input);
                ApprovalDecision::Denied
            }
            ApprovalAnswer {
                decision, message, ..
            } => {
                if let Some(message) = message.filter(|_| decision == ApprovalDecision::Denied) {
                    self.call_approval.deny_with(message);
                }
                decision
            }
        }
    }

    /// Asks the user to confirm `request` whatever the policy says, except
    /// [`ApprovalPolicy::Never`], which refuses (a `PreToolUse` hook's `ask`).
    pub(crate) async fn confirm(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        crate::approval::confirm(self.approval, self.approver.as_deref(), request).await
    }

    /// Sends an event, if anyone listens.
    pub fn emit(&self, event: SessionEvent) {
        if let Some(events) = &self.events {
            // A receiver gone means nobody renders: the turn goes on.
            let _ = events.send(event);
        }
    }

    pub(crate) fn notify_read(
        &self,
        path: &Path,
        content: &str,
        offset: Option<usize>,
        limit: Option<usize>,
    ) {
        for observer in &self.observers {
            observer.file_read(path, content, self.turn, offset, limit);
        }
    }

    pub(crate) fn notify_write(&self, path: &Path, content: &str) {
        for observer in &self.observers {
            observer.file_written(path, content, self.turn);
        }
    }
}

/// One tool.
#[async_trait]
pub trait ToolHandler: Send + Sync {
    /// Name, description and JSON schema of the arguments, as the model sees them.
    fn spec(&self) -> ToolSpec;

    /// Whether calls may run concurrently with other parallel-safe calls (read-only tools).
    fn parallel_safe(&self) -> bool {
        false
    }

    /// What the tool is (a read, a search, a listing, a shell command, an edit, a write): the
    /// engine's micro-compaction clears old results of reads, searches, listings and shell
    /// commands, and keeps those of edits and writes. `None` (the default): its results are
    /// never cleared.
    fn class(&self) -> Option<ToolClass> {
        None
    }

    /// Runs one call with the raw JSON `arguments`.
    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput;
}

/// The tools of a session, in the order the model sees them. A fork adds its own with
/// [`ToolRegistry::register`] (a tool of the same name replaces the earlier one).
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn ToolHandler>>,
    interceptors: Vec<Arc<dyn ToolCallInterceptor>>,
}

/// One tool call, as interceptors see it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ToolCall<'a> {
    /// The call's id (the provider's `call_id`; hooks' `tool_use_id`).
    pub call_id: &'a str,
    /// The tool.
    pub name: &'a str,
    /// Its raw JSON arguments, as the earlier interceptors left them.
    pub arguments: &'a str,
}

/// What an interceptor decides before a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BeforeCall {
    /// The call goes on.
    Proceed,
    /// The call goes on with these arguments instead (a hook's `updatedInput`).
    Rewrite(String),
    /// The call does not run; this output is what the model reads.
    Refuse(ToolOutput),
}

/// Runs around every call of a registry's tools (the hooks of `hooks_ext.rs`): before a call it
/// may refuse it with an output of its own, rewrite its arguments or approve it
/// ([`ToolContext::call_approval`]); after it sees the output and may replace it. Tools never
/// know.
#[async_trait]
pub(crate) trait ToolCallInterceptor: Send + Sync {
    /// Before `call`.
    async fn before_call(&self, _ctx: &ToolContext, _call: ToolCall<'_>) -> BeforeCall {
        BeforeCall::Proceed
    }

    /// After `call` (with the arguments it ran with) produced `output`.
    async fn after_call(&self, _ctx: &ToolContext, _call: ToolCall<'_>, _output: &mut ToolOutput) {}
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|tool| tool.spec().name))
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The built-in tools: files and their search, shell, todos, questions to the user, plan
    /// mode, subagents and `recall` (what compaction removed). (The `skill` tool is added by
    /// the session when skills are loaded.)
    pub(crate) fn with_builtin_tools() -> Self {
        let mut registry = Self::new();
        registry.register(Arc::new(ReadFileTool));
        registry.register(Arc::new(GrepTool));
        registry.register(Arc::new(GlobTool));
        registry.register(Arc::new(ListDirTool));
        registry.register(Arc::new(WriteFileTool));
        registry.register(Arc::new(EditFileTool));
        registry.register(Arc::new(ShellTool::default()));
        registry.register(Arc::new(BashOutputTool));
        registry.register(Arc::new(KillShellTool));
        registry.register(Arc::new(TodoWriteTool));
        registry.register(Arc::new(AskUserTool));
        registry.register(Arc::new(EnterPlanModeTool));
        registry.register(Arc::new(ExitPlanModeTool));
        registry.register(Arc::new(TaskTool));
        registry.register(Arc::new(AgentOutputTool));
        registry.register(Arc::new(RecallTool));
        registry
    }

    /// The read-only tools a read-only subagent (Explore, Plan) gets: reading and searching
    /// files. (No `ask_user`: a subagent's user is its parent, which reads its final answer.)
    pub(crate) fn read_only() -> Self {
        let mut registry = Self::new();
        registry.register(Arc::new(ReadFileTool));
        registry.register(Arc::new(GrepTool));
        registry.register(Arc::new(GlobTool));
        registry.register(Arc::new(ListDirTool));
        registry
    }

    /// Adds `tool`, replacing a tool of the same name in place.
    pub fn register(&mut self, tool: Arc<dyn ToolHandler>) {
        let name = tool.spec().name;
        match self.tools.iter_mut().find(|t| t.spec().name == name) {
            Some(slot) => *slot = tool,
            None => self.tools.push(tool),
        }
    }

    /// Removes the tool named `name`.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.tools.len();
        self.tools.retain(|tool| tool.spec().name != name);
        self.tools.len() != before
    }

    /// Adds an interceptor run around every call, after those added before it.
    pub(crate) fn add_interceptor(&mut self, interceptor: Arc<dyn ToolCallInterceptor>) {
        self.interceptors.push(interceptor);
    }

    /// Runs the call `call_id` of `name` through the interceptors and the tool, in a context
    /// with the call's own [`CallApproval`].
    pub(crate) async fn dispatch(
        &self,
        ctx: &ToolContext,
        call_id: &str,
        name: &str,
        arguments: &str,
    ) -> ToolOutput {
        let ctx = ToolContext {
            call_approval: Arc::default(),
            ..ctx.clone()
        };
        let mut arguments = arguments.to_owned();
        for interceptor in &self.interceptors {
            let call = ToolCall {
                call_id,
                name,
                arguments: &arguments,
            };
            match interceptor.before_call(&ctx, call).await {
                BeforeCall::Proceed => {}
                BeforeCall::Rewrite(updated) => arguments = updated,
                BeforeCall::Refuse(output) => return output,
            }
        }
        let mut output = match self.get(name) {
            Some(tool) => {
                let output = tool.handle(&ctx, &arguments).await;
                // Approved with other input (a `PermissionRequest` hook's `updatedInput`): the
                // tool stopped at its approval; it runs again with that input, approved.
                match ctx
                    .call_approval
                    .take_rerun()
                    .and_then(|input| updated_arguments(&arguments, &input, true))
                {
                    Some(updated) => {
                        arguments = updated;
                        tool.handle(&ctx, &arguments).await
                    }
                    None => output,
                }
            }
            None => ToolOutput::error(format!("Error: unknown tool {name}")),
        };
        if let Some(message) = ctx.call_approval.take_denial() {
            output.text = format!("{}\nReason: {message}", output.text);
        }
        let call = ToolCall {
            call_id,
            name,
            arguments: &arguments,
        };
        for interceptor in &self.interceptors {
            interceptor.after_call(&ctx, call, &mut output).await;
        }
        output
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn ToolHandler>> {
        self.tools
            .iter()
            .find(|tool| tool.spec().name == name)
            .cloned()
    }

    /// The specs to send with a prompt.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|tool| tool.spec()).collect()
    }

    /// Tool names, in order.
    pub fn names(&self) -> Vec<String> {
        self.tools.iter().map(|tool| tool.spec().name).collect()
    }

    /// The class each tool declares, by name, for the engine
    /// (`ContextEngine::set_tool_classes`).
    pub(crate) fn tool_classes(&self) -> ToolClasses {
        self.tools
            .iter()
            .map(|tool| (tool.spec().name, tool.class()))
            .collect()
    }
}

/// Parses the arguments of a call, or the tool error telling the model what was wrong.
pub(crate) fn parse_args<T: DeserializeOwned>(
    tool: &str,
    arguments: &str,
) -> Result<T, ToolOutput> {
    let arguments = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    serde_json::from_str(arguments)
        .map_err(|err| ToolOutput::error(format!("Error: invalid arguments for {tool}: {err}")))
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
