//! [`SystemReminderConfig`] and [`AttachmentSettings`] (see docs/design/reminders.md,
//! "Configuration"), loadable from TOML, with the environment overrides.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use crate::throttle::DEFAULT_TODO_RESTATE_AFTER_REQUESTS;
use crate::types::AttachmentType;

/// Default generator timeout (`ATTACHMENT_TIMEOUT`).
pub(crate) const DEFAULT_TIMEOUT_MS: i64 = 1_000;
/// Default share of generator runs whose timing is logged (`TELEMETRY_SAMPLE_RATE`).
pub(crate) const DEFAULT_TELEMETRY_SAMPLE_RATE: f64 = 0.05;
/// Default token cap of the `changed_files` reminder per turn.
pub(crate) const DEFAULT_CHANGED_FILES_TOKEN_CAP: usize = 5_000;

/// Where reminders go in the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReminderPlacement {
    /// Appended after the newest user input and kept in history, so each prompt is a
    /// byte-identical extension of the previous one (the provider's prompt cache keeps hitting).
    #[default]
    Tail,
    /// Rebuilt into each prompt right after the environment context and user instructions
    /// (see docs/design/reminders.md, "Placement").
    AfterEnvironmentContext,
}

impl ReminderPlacement {
    /// Parses `tail` or `after_environment_context`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim() {
            "tail" => Some(Self::Tail),
            "after_environment_context" => Some(Self::AfterEnvironmentContext),
            _ => None,
        }
    }
}

/// The system reminder section of the configuration (`[system_reminder]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SystemReminderConfig {
    /// Master switch (default true).
    pub enabled: bool,
    /// A user-defined instruction, injected on every turn with `AfterEnvironmentContext`
    /// placement, and with `Tail` placement when set, changed, or after compaction (the copy
    /// already in the history serves the turns between).
    pub critical_instruction: Option<String>,
    /// Per-type switches.
    pub attachments: AttachmentSettings,
    /// Generator timeout in milliseconds (default 1,000).
    pub timeout_ms: Option<i64>,
    /// Whether the token usage reminder is on (default false).
    pub enable_token_usage: bool,
    /// Where reminders go in the prompt (default `tail`).
    pub placement: ReminderPlacement,
    /// Token cap of the `changed_files` reminder per turn (default 5,000).
    pub changed_files_token_cap: usize,
    /// Share of generator runs whose timing is logged (default 0.05).
    pub telemetry_sample_rate: f64,
    /// Requests within one user turn after which a standing reminder (the todo list, plan mode,
    /// the output style, …) whose text has not changed since the model last saw it is sent
    /// again (default 30). Within that span an unchanged standing reminder is not repeated; a
    /// new user turn or a compaction allows it at once. The todo reminder was the first to
    /// follow the rule, hence the name.
    pub todo_restate_after_requests: i32,
    /// The output style the model is told about (`output_style` reminder); `None` or
    /// `"default"`: none.
    pub output_style: Option<String>,
    /// A spend budget in US dollars (`budget_usd` reminder): the host prices each request's
    /// usage and reports spend against it. `None`: no budget, no reminder.
    pub budget_usd: Option<f64>,
}

impl Default for SystemReminderConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            critical_instruction: None,
            attachments: AttachmentSettings::default(),
            timeout_ms: Some(DEFAULT_TIMEOUT_MS),
            enable_token_usage: false,
            placement: ReminderPlacement::default(),
            changed_files_token_cap: DEFAULT_CHANGED_FILES_TOKEN_CAP,
            telemetry_sample_rate: DEFAULT_TELEMETRY_SAMPLE_RATE,
            todo_restate_after_requests: DEFAULT_TODO_RESTATE_AFTER_REQUESTS,
            output_style: None,
            budget_usd: None,
        }
    }
}

/// A configuration could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The TOML did not parse.
    #[error("invalid system reminder config: {0}")]
    Toml(#[from] toml::de::Error),
    /// An environment variable had a value that is not usable.
    #[error("invalid value {value:?} for environment variable {name}: {reason}")]
    Env {
        /// The variable.
        name: String,
        /// Its value.
        value: String,
        /// Why it was rejected.
        reason: String,
    },
}

#[derive(Deserialize)]
struct ConfigDocument {
    #[serde(default)]
    system_reminder: SystemReminderConfig,
}

impl SystemReminderConfig {
    /// Reads the `[system_reminder]` section of a whole `config.toml` ; a document
    /// without the section gives the defaults.
    pub fn from_toml_document(text: &str) -> Result<Self, ConfigError> {
        let document: ConfigDocument = toml::from_str(text)?;
        Ok(document.system_reminder)
    }

    /// Reads the section's own TOML (the table's keys at top level).
    pub fn from_toml_section(text: &str) -> Result<Self, ConfigError> {
        Ok(toml::from_str(text)?)
    }

    /// The generator timeout; non-positive or missing values give the default.
    pub fn timeout(&self) -> std::time::Duration {
        let millis = self
            .timeout_ms
            .filter(|millis| *millis > 0)
            .unwrap_or(DEFAULT_TIMEOUT_MS);
        std::time::Duration::from_millis(millis.unsigned_abs())
    }

    /// Whether reminders of `attachment_type` may be generated: the master switch, the
    /// per-type switch and, for token usage, `enable_token_usage`.
    pub fn is_type_enabled(&self, attachment_type: AttachmentType) -> bool {
        if !self.enabled || !self.attachments.is_enabled(attachment_type) {
            return false;
        }
        match attachment_type {
            AttachmentType::TokenUsage => self.enable_token_usage,
            _ => true,
        }
    }

    /// Applies the environment overrides. `lookup` answers a variable's value
    /// (pass `|name| std::env::var(name).ok()` in a binary). For each setting the
    /// `AGENTCTX_` name wins over the `CODEX_` name (Codex's own):
    ///
    /// | variable (`AGENTCTX_` / `CODEX_`) | effect |
    /// |---|---|
    /// | `DISABLE_SYSTEM_REMINDERS` | truthy: master switch off |
    /// | `ENABLE_TOKEN_USAGE` | truthy: token usage reminder on; falsy: off |
    /// | `SYSTEM_REMINDER_TIMEOUT_MS` | generator timeout in ms |
    /// | `SYSTEM_REMINDER_PLACEMENT` | `tail` or `after_environment_context` |
    pub fn apply_env_overrides(
        &mut self,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        if let Some((name, value)) = env_value(lookup, "DISABLE_SYSTEM_REMINDERS")
            && parse_bool(&name, &value)?
        {
            self.enabled = false;
        }
        if let Some((name, value)) = env_value(lookup, "ENABLE_TOKEN_USAGE") {
            self.enable_token_usage = parse_bool(&name, &value)?;
        }
        if let Some((name, value)) = env_value(lookup, "SYSTEM_REMINDER_TIMEOUT_MS") {
            let millis = value
                .trim()
                .parse::<i64>()
                .ok()
                .filter(|millis| *millis > 0)
                .ok_or_else(|| ConfigError::Env {
                    name: name.clone(),
                    value: value.clone(),
                    reason: "expected a positive number of milliseconds".to_string(),
                })?;
            self.timeout_ms = Some(millis);
        }
        if let Some((name, value)) = env_value(lookup, "SYSTEM_REMINDER_PLACEMENT") {
            self.placement =
                ReminderPlacement::from_name(&value).ok_or_else(|| ConfigError::Env {
                    name: name.clone(),
                    value: value.clone(),
                    reason: "expected tail or after_environment_context".to_string(),
                })?;
        }
        Ok(())
    }
}

impl SystemReminderConfig {
    /// [`SystemReminderConfig::apply_env_overrides`] over a list of variables, as
    /// `std::env::vars()` gives them; variables without the `AGENTCTX_` or `CODEX_` prefix are ignored.
    /// Tests pass their own list, so they never touch the process environment.
    pub fn apply_env_vars<I, K, V>(&mut self, vars: I) -> Result<(), ConfigError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        let vars: std::collections::HashMap<String, String> = vars
            .into_iter()
            .map(|(name, value)| (name.into(), value.into()))
            .filter(|(name, _)| ENV_PREFIXES.iter().any(|prefix| name.starts_with(prefix)))
            .collect();
        self.apply_env_overrides(&|name| vars.get(name).cloned())
    }
}

/// The environment prefixes, highest priority first.
pub(crate) const ENV_PREFIXES: [&str; 2] = ["AGENTCTX_", "CODEX_"];

fn env_value(lookup: &dyn Fn(&str) -> Option<String>, suffix: &str) -> Option<(String, String)> {
    ENV_PREFIXES.iter().find_map(|prefix| {
        let name = format!("{prefix}{suffix}");
        lookup(&name).map(|value| (name, value))
    })
}

fn parse_bool(name: &str, value: &str) -> Result<bool, ConfigError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(ConfigError::Env {
            name: name.to_string(),
            value: value.to_string(),
            reason: "expected 1/0, true/false, yes/no or on/off".to_string(),
        }),
    }
}

macro_rules! attachment_settings {
    ($( $field:ident => $variant:ident, )+) => {
        /// Per-type switches; every type is on by default (token usage also needs
        /// [`SystemReminderConfig::enable_token_usage`]).
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        #[serde(default)]
        pub struct AttachmentSettings {
            $(
                #[doc = concat!("Switch for `", stringify!($field), "` (default true).")]
                pub $field: bool,
            )+
        }

        impl Default for AttachmentSettings {
            fn default() -> Self {
                Self { $( $field: true, )+ }
            }
        }

        impl AttachmentSettings {
            /// The switch of `attachment_type`.
            pub fn is_enabled(&self, attachment_type: AttachmentType) -> bool {
                match attachment_type {
                    $( AttachmentType::$variant => self.$field, )+
                }
            }

            /// Sets the switch of `attachment_type`.
            pub fn set_enabled(&mut self, attachment_type: AttachmentType, enabled: bool) {
                match attachment_type {
                    $( AttachmentType::$variant => self.$field = enabled, )+
                }
            }
        }
    };
}

attachment_settings! {
    at_mentioned_files => AtMentionedFiles,
    mcp_resources => McpResources,
    agent_mentions => AgentMentions,
    changed_files => ChangedFiles,
    nested_memory => NestedMemory,
    plan_mode => PlanMode,
    plan_mode_reentry => PlanModeReentry,
    plan_mode_exit => PlanModeExit,
    delegate_mode => DelegateMode,
    delegate_mode_exit => DelegateModeExit,
    todo_reminder => TodoReminder,
    collab_notification => CollabNotification,
    critical_instruction => CriticalInstruction,
    tool_result => ToolResult,
    invoked_skills => InvokedSkills,
    compact_file_reference => CompactFileReference,
    plan_file_reference => PlanFileReference,
    micro_compact => MicroCompact,
    hook_blocking_error => HookBlockingError,
    hook_success => HookSuccess,
    hook_additional_context => HookAdditionalContext,
    hook_stopped_continuation => HookStoppedContinuation,
    ide_selection => IdeSelection,
    ide_opened_file => IdeOpenedFile,
    output_style => OutputStyle,
    queued_commands => QueuedCommands,
    teammate_message => TeammateMessage,
    diagnostics => Diagnostics,
    lsp_diagnostics => LspDiagnostics,
    background_task => BackgroundTask,
    task_progress => TaskProgress,
    async_agent_status => AsyncAgentStatus,
    async_hook_responses => AsyncHookResponses,
    session_memory => SessionMemory,
    ultramemory => Ultramemory,
    token_usage => TokenUsage,
    budget_usd => BudgetUsd,
    verify_plan_reminder => VerifyPlanReminder,
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
