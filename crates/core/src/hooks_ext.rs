//! Hooks, Claude Code compatible: the user's hooks run on the events of Claude Code's hooks
//! reference that have a counterpart in the session (`SessionStart`, `InstructionsLoaded`,
//! `UserPromptSubmit`, `UserPromptExpansion`, `PreToolUse`, `PermissionRequest`,
//! `PostToolUse`, `PostToolUseFailure`, `PostToolBatch`, `Notification`, `SubagentStart`,
//! `SubagentStop`, `TaskCreated`, `TaskCompleted`, `Stop`, `StopFailure`, `PreCompact`,
//! `PostCompact`, `SessionEnd`), configured in Claude Code's shape in `[hooks]` of
//! `config.toml` and in a project's `.claude/settings.json` / `.claude/settings.local.json`,
//! as `command`, `http`, `prompt` or `mcp_tool` handlers (`hooks/handlers.rs`).
//!
//! What the hooks say reaches the model through the reminder crate's hook generators:
//! [`HooksExt`] is their `HookResponseProvider`. A hook that hangs, crashes, prints megabytes,
//! answers a non-2xx status or cannot start is reported (a `Warning` event and a log line) and
//! the turn goes on. See docs/design/hooks.md and Claude Code's hooks reference,
//! <https://code.claude.com/docs/en/hooks>.
//!
//! The session calls it in one line each where an event fires (`hooks/session_events.rs`
//! lists them). Delete this file, `hooks/` and those lines and the session runs without hooks.

#[path = "hooks/approver.rs"]
mod approver;
#[path = "hooks/handlers.rs"]
mod handlers;
#[path = "hooks/http_hook.rs"]
mod http_hook;
#[path = "hooks/mcp_tool_hook.rs"]
mod mcp_tool_hook;
#[path = "hooks/outcome.rs"]
mod outcome;
#[path = "hooks/permission_updates.rs"]
mod permission_updates;
#[path = "hooks/prompt_hook.rs"]
mod prompt_hook;
#[path = "hooks/runner.rs"]
mod runner;
#[path = "hooks/session_events.rs"]
mod session_events;
#[path = "hooks/settings.rs"]
mod settings;
#[path = "hooks/skill_hooks.rs"]
mod skill_hooks;
#[path = "hooks/tool_hooks.rs"]
mod tool_hooks;

use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;

use agentctx_model::ModelClient;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::HookResponseProvider;
use agentctx_rollout::RolloutRecorder;
use agentctx_skills::SkillHooksConfig;
use tokio::sync::mpsc::UnboundedSender;

use self::runner::Backends;
use self::runner::HookRunner;
use self::runner::Inbox;
pub use self::session_events::SessionEndReason;
pub use self::settings::HookCommand;
pub(crate) use self::settings::HookEvent;
pub use self::settings::HookMatcher;
pub(crate) use self::settings::HookSet;
pub use self::settings::HooksConfig;
use self::skill_hooks::SkillHooks;
use crate::approval::Approver;
use crate::engine_ext::ContextEngine;
use crate::event::SessionEvent;
use crate::mcp_ext::McpConnectionManager;
use crate::tools::ToolRegistry;

/// Bytes of each output stream of a hook that are kept; the rest is read and dropped.
pub(crate) const HOOK_OUTPUT_CAP: usize = 64 * 1024;

/// The Claude Code name of our tool `name`, when it has one (the one table of them:
/// [`crate::tools::CLAUDE_CODE_TOOL_NAMES`]).
pub(crate) fn claude_tool_name(name: &str) -> Option<&'static str> {
    crate::tools::claude_code_name(name)
}

/// The session's hooks.
#[derive(Debug)]
pub(crate) struct HooksExt {
    runner: Arc<HookRunner>,
    started: bool,
    stop_hook_active: bool,
    /// What the user gave `/compact`, for the next `PreCompact`.
    compact_instructions: Option<String>,
}

impl HooksExt {
    /// The hooks of `config` and of the project under `cwd`, for the session `recorder` records
    /// (its id and transcript path go to every hook); warnings go out on `events`.
    pub(crate) fn new(
        config: &HooksConfig,
        cwd: &Path,
        recorder: &RolloutRecorder,
        events: &UnboundedSender<SessionEvent>,
    ) -> Self {
        Self::from_runner(HookRunner {
            set: HookSet::load(config, cwd),
            enabled: config.enabled,
            skill_hooks: SkillHooks::default(),
            cwd: cwd.to_path_buf(),
            session_id: recorder.session_id().to_string(),
            transcript_path: recorder.path().to_path_buf(),
            inbox: Arc::new(Inbox::default()),
            events: events.clone(),
            stop_requested: Mutex::new(None),
            background: Mutex::new(Vec::new()),
            backends: Arc::new(Mutex::new(Backends::default())),
            permissions: Arc::default(),
            agent: None,
        })
    }

    fn from_runner(runner: HookRunner) -> Self {
        Self {
            runner: Arc::new(runner),
            started: false,
            stop_hook_active: false,
            compact_instructions: None,
        }
    }

    /// Puts the tool hooks around `tools` (`hooks/tool_hooks.rs`) whenever hooks are enabled,
    /// since a skill may bring its own while it runs. (`PreCompact` runs in the session's
    /// compaction, where it can block: [`HooksExt::pre_compact_blocked`].)
    pub(crate) fn install(&self, tools: &mut ToolRegistry, _engine: &mut ContextEngine) {
        if !self.runner.enabled {
            return;
        }
        tools.add_interceptor(Arc::new(tool_hooks::ToolHooks(Arc::clone(&self.runner))));
    }

    /// The model `prompt` hooks ask (the session's).
    pub(crate) fn set_model(&self, model: Arc<dyn ModelClient>) {
        self.runner
            .backends
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .model = Some(model);
    }

    /// The MCP servers `mcp_tool` hooks call (the session's, once attached).
    pub(crate) fn attach_mcp(&self, manager: Arc<McpConnectionManager>) {
        self.runner
            .backends
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .mcp = Some(manager);
    }

    /// `approver` behind the `PermissionRequest` and `Notification` hooks
    /// (`hooks/approver.rs`); unchanged when no hook is configured.
    pub(crate) fn approver(
        &self,
        approver: Option<Arc<dyn Approver>>,
    ) -> Option<Arc<dyn Approver>> {
        if !self.runner.enabled || self.runner.is_idle() {
            return approver;
        }
        Some(Arc::new(approver::HookedApprover {
            runner: Arc::clone(&self.runner),
            inner: approver,
        }))
    }

    /// Adds the hooks of the skill `name` (its frontmatter `hooks:`) to the session's until
    /// [`HooksExt::deactivate_skill_hooks`] (`hooks/skill_hooks.rs`).
    pub(crate) fn activate_skill_hooks(&self, name: &str, config: &SkillHooksConfig) {
        self.runner.skill_hooks.activate(name, config);
    }

    /// Removes every active skill's hooks (their skills ended with the turn); a `once` hook
    /// that ran stays spent for the session.
    pub(crate) fn deactivate_skill_hooks(&self) {
        self.runner.skill_hooks.deactivate_all();
    }

    /// The handle through which the session's subagents run hooks.
    pub(crate) fn skill_hook_host(&self) -> SkillHookHost {
        SkillHookHost(Arc::clone(&self.runner))
    }

    /// `ctx` with the hook outcomes as its hook provider.
    pub(crate) fn with_provider(&self, mut ctx: GeneratorContext) -> GeneratorContext {
        ctx.providers.hooks = Arc::clone(&self.runner.inbox) as Arc<dyn HookResponseProvider>;
        ctx
    }

    /// Waits until every `async` hook started so far has ended (its response is then in the
    /// inbox for the next request).
    pub(crate) async fn wait_for_async_hooks(&self) {
        let running = std::mem::take(
            &mut *self
                .runner
                .background
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for handle in running {
            let _ = handle.await;
        }
    }

    /// Whether a hook said `continue: false` since the last call (the turn then ends).
    pub(crate) fn take_stop_request(&self) -> bool {
        self.runner
            .stop_requested
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .is_some()
    }
}

/// The session's hooks as its subagents see them: a subagent runs the session's hooks with
/// its `agent_id` and `agent_type` in their input ([`SkillHookHost::for_agent`]), and a
/// subagent running a skill (`context: fork`) that skill's hooks too
/// ([`SkillHookHost::for_skill`]).
#[derive(Debug, Clone)]
pub(crate) struct SkillHookHost(Arc<HookRunner>);

impl SkillHookHost {
    /// A runner for the subagent `agent_type` (its `agent_id` fresh): the session's configured
    /// hooks, its id, transcript, working directory, `[hooks] enabled` switch, warnings, model
    /// and MCP servers, with `agent_id` / `agent_type` added to every input, as Claude Code
    /// runs hooks inside a subagent.
    pub(crate) fn for_agent(&self, agent_type: &str) -> HooksExt {
        self.scoped(agent_type, SkillHooks::default())
    }

    /// A runner of the hooks of `skill` (its frontmatter `config`) with the session's, for the
    /// subagent that runs it: scoped to that subagent, as Claude Code scopes a component's
    /// hooks to its lifecycle (<https://code.claude.com/docs/en/hooks#hooks-in-skills-and-agents>),
    /// with its record of the `once` hooks that ran. The skill's `Stop` hooks become
    /// `SubagentStop` hooks, as Claude Code converts a subagent's frontmatter `Stop` hooks
    /// (<https://code.claude.com/docs/en/sub-agents>, "Define hooks for subagents").
    pub(crate) fn for_skill(&self, skill: &str, config: &SkillHooksConfig) -> HooksExt {
        let mut config = config.clone();
        if let Some(mut stop) = config.remove(HookEvent::Stop.as_str()) {
            config
                .entry(HookEvent::SubagentStop.as_str().to_string())
                .or_default()
                .append(&mut stop);
        }
        let skill_hooks = self.0.skill_hooks.scoped();
        skill_hooks.activate(skill, &config);
        self.scoped("general-purpose", skill_hooks)
    }

    fn scoped(&self, agent_type: &str, skill_hooks: SkillHooks) -> HooksExt {
        let session = &self.0;
        let agent_id = format!("agent-{}", uuid::Uuid::new_v4().simple());
        let mut hooks = HooksExt::from_runner(HookRunner {
            set: session.set.clone(),
            enabled: session.enabled,
            skill_hooks,
            cwd: session.cwd.clone(),
            session_id: session.session_id.clone(),
            transcript_path: session.transcript_path.clone(),
            inbox: Arc::new(Inbox::default()),
            events: session.events.clone(),
            stop_requested: Mutex::new(None),
            background: Mutex::new(Vec::new()),
            backends: Arc::clone(&session.backends),
            permissions: Arc::clone(&session.permissions),
            agent: Some((agent_id, agent_type.to_string())),
        });
        // A subagent has no session start of its own.
        hooks.started = true;
        hooks
    }
}
