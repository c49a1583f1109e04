//! [`SessionOptions`]: what a session is built from. The caller fills it, usually through
//! [`crate::session_setup`] from the aggregated configuration.

use std::path::PathBuf;
use std::sync::Arc;

use agentctx_model::ModelClient;

use crate::approval::ApprovalPolicy;
use crate::approval::Approver;
use crate::engine_ext;
use crate::skills_ext;
use crate::subagent::SubagentRunner;
use crate::subagent::executor::Subagents;

/// The base instructions when the caller gives none.
pub const DEFAULT_BASE_INSTRUCTIONS: &str = "You are a coding agent working in the user's repository. Use the tools to read, change and test the code; keep changes small and say what you did.";

/// The most model requests one turn may make unless the options say otherwise.
pub const DEFAULT_MAX_REQUESTS_PER_TURN: u32 = 200;

/// What a session is built from; the caller fills it (from its aggregated config).
#[derive(Clone)]
pub struct SessionOptions {
    /// The working directory; file tools stay inside it.
    pub cwd: PathBuf,
    /// The agentctx home: sessions, tool results and session memory live under it.
    pub home: PathBuf,
    /// The plans folder: plan mode writes its plan file here (`<home>/plans` by default;
    /// `session_setup` puts it where `agentctx loop` looks for plans).
    pub plans_dir: PathBuf,
    /// The model.
    pub model: Arc<dyn ModelClient>,
    /// The provider's name, recorded in the rollout.
    pub provider_name: String,
    /// The system prompt.
    pub base_instructions: String,
    /// Reminders.
    pub reminders: engine_ext::SystemReminderConfig,
    /// Compaction.
    pub compact: engine_ext::CompactConfig,
    /// Skills.
    pub skills: skills_ext::SkillsConfig,
    /// Cross-session memory (`[memory]`).
    pub memory: crate::memory_ext::MemorySettings,
    /// The prompt history (`[history]`): each turn's input is appended to
    /// `<home>/history.jsonl`.
    pub history: agentctx_context::MessageHistoryConfig,
    /// Hooks (`[hooks]`; the project's Claude Code settings are read too).
    pub hooks: crate::hooks_ext::HooksConfig,
    /// Language servers (`[lsp.<language>]`): their diagnostics of the files the session
    /// writes reach the model as the `lsp_diagnostics` reminder.
    pub lsp: std::collections::BTreeMap<String, agentctx_lsp::LspServerConfig>,
    /// When to ask before shell commands and writes.
    pub approval: ApprovalPolicy,
    /// Who answers under [`ApprovalPolicy::OnRequest`].
    pub approver: Option<Arc<dyn Approver>>,
    /// Start in plan mode.
    pub plan_mode: bool,
    /// The shell named in the environment context.
    pub shell: Option<String>,
    /// The date shown to the model (`None`: not shown).
    pub current_date: Option<String>,
    /// The timezone shown to the model.
    pub timezone: Option<String>,
    /// The most model requests of one turn.
    pub max_requests_per_turn: u32,
    /// The session id (`None`: a new UUIDv7).
    pub session_id: Option<String>,
    /// What decides the thinking level of each turn besides its message (`[thinking]`, the
    /// environment, an override for every turn).
    pub thinking: crate::thinking_ext::ThinkingOptions,
    /// Resolves another model by its slug (`/model`, a skill's `model`, a resume with another
    /// model), as the session's own model was resolved; `None`: no switch is possible.
    pub model_resolver: Option<Arc<dyn crate::model_switch::ModelResolver>>,
}

impl std::fmt::Debug for SessionOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionOptions")
            .field("cwd", &self.cwd)
            .field("home", &self.home)
            .field("model", &self.model.slug())
            .field("provider_name", &self.provider_name)
            .field("approval", &self.approval)
            .field("plan_mode", &self.plan_mode)
            .finish_non_exhaustive()
    }
}

impl SessionOptions {
    /// Options with every default: `on-request` approval with no approver (so shell commands
    /// and writes are refused until the caller sets one), no plan mode, default configs.
    pub fn new(
        cwd: impl Into<PathBuf>,
        home: impl Into<PathBuf>,
        model: Arc<dyn ModelClient>,
    ) -> Self {
        let home = home.into();
        Self {
            cwd: cwd.into(),
            plans_dir: home.join("plans"),
            home,
            model,
            provider_name: String::new(),
            base_instructions: DEFAULT_BASE_INSTRUCTIONS.to_string(),
            reminders: Default::default(),
            compact: Default::default(),
            skills: Default::default(),
            memory: Default::default(),
            hooks: Default::default(),
            lsp: Default::default(),
            history: Default::default(),
            approval: ApprovalPolicy::default(),
            approver: None,
            plan_mode: false,
            shell: Some("bash".to_string()),
            current_date: None,
            timezone: None,
            max_requests_per_turn: DEFAULT_MAX_REQUESTS_PER_TURN,
            session_id: None,
            thinking: Default::default(),
            model_resolver: None,
        }
    }

    /// The subagents of a session on `model`: the built-in agents with these reminder,
    /// compaction and thinking settings, this model resolver (a forked skill's `model`) and the
    /// session's `hooks` for the hooks of forked skills. Built again when the session switches
    /// its model.
    pub(super) fn subagents(
        &self,
        model: Arc<dyn ModelClient>,
        hooks: &crate::hooks_ext::HooksExt,
    ) -> Arc<dyn SubagentRunner> {
        Arc::new(
            Subagents::builtin(model, self.reminders.clone())
                .with_compact_config(self.compact.clone())
                .with_thinking(self.thinking.clone())
                .with_model_resolver(self.model_resolver.clone())
                .with_skill_hooks(hooks.skill_hook_host()),
        )
    }
}
