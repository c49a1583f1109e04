//! Hook settings in Claude Code's shape: event → matchers → hook handlers (`command`, `http`,
//! `prompt`, `mcp_tool`) with a timeout, from
//! `[hooks]` in `config.toml` and from a project's `.claude/settings.json` and
//! `.claude/settings.local.json` (read unchanged: other keys, events without a counterpart and
//! `agent` hooks are skipped and logged). See docs/design/hooks.md, "Settings", and Claude
//! Code's hooks reference, <https://code.claude.com/docs/en/hooks> ("Configuration").

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// Seconds a `command`, `http` or `mcp_tool` hook may run when its settings give no `timeout`
/// (Claude Code's default: "600 for command, http, and mcp_tool").
pub(crate) const DEFAULT_HOOK_TIMEOUT_SECS: u64 = 600;

/// Seconds a `prompt` hook may run by default.
pub(crate) const DEFAULT_PROMPT_TIMEOUT_SECS: u64 = 30;

/// Seconds a `command`, `http` or `mcp_tool` hook of `UserPromptSubmit` may run by default (Claude
/// Code lowers it there: the hook holds every prompt up).
pub(crate) const USER_PROMPT_SUBMIT_TIMEOUT_SECS: u64 = 30;

/// The budget of a `SessionEnd` hook without a timeout of its own (Claude Code: 1.5 s, raised to
/// a hook's own timeout up to 60 s).
pub(crate) const SESSION_END_BUDGET: Duration = Duration::from_millis(1_500);

/// The most a `SessionEnd` hook's own timeout raises its budget to.
pub(crate) const SESSION_END_MAX_SECS: u64 = 60;

/// The project settings files read, in order, relative to the working directory.
pub(crate) const PROJECT_SETTINGS_FILES: [&str; 2] =
    [".claude/settings.json", ".claude/settings.local.json"];

/// The events of Claude Code's hooks reference that have a counterpart in the session (see
/// docs/design/hooks.md, "Events", for where each fires and for those left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum HookEvent {
    /// When the session starts its first turn, resumes, or after a compaction.
    SessionStart,
    /// When `AGENTS.md` is loaded into the context.
    InstructionsLoaded,
    /// Before the user's message is sent; may add context or block it.
    UserPromptSubmit,
    /// When a typed skill (`/name args`) expands into its prompt; may block it.
    UserPromptExpansion,
    /// Before a tool call; may block it.
    PreToolUse,
    /// When a tool call asks for approval; may allow or deny it.
    PermissionRequest,
    /// After a tool call that succeeded.
    PostToolUse,
    /// After a tool call that failed.
    PostToolUseFailure,
    /// After all the tool calls of one response, before the next request; may stop the loop.
    PostToolBatch,
    /// When the session asks the user something.
    Notification,
    /// When a subagent starts.
    SubagentStart,
    /// When a subagent ends its run; may make it go on.
    SubagentStop,
    /// When a todo item is created; may refuse it.
    TaskCreated,
    /// When a todo item is marked completed; may refuse it.
    TaskCompleted,
    /// When the model ends its turn; may make it go on.
    Stop,
    /// When a turn ends on a model error.
    StopFailure,
    /// Before a compaction; may block it.
    PreCompact,
    /// After a compaction.
    PostCompact,
    /// When the host ends the session.
    SessionEnd,
}

/// Events of the reference without a counterpart in the session: read without a warning of
/// an unknown event, never run (docs/design/hooks.md, "Not supported").
pub(crate) const EVENTS_WITHOUT_COUNTERPART: [&str; 11] = [
    "Setup",
    "PermissionDenied",
    "TeammateIdle",
    "ConfigChange",
    "CwdChanged",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "Elicitation",
    "ElicitationResult",
    "MessageDisplay",
];

impl HookEvent {
    /// Every event.
    pub(crate) const ALL: [Self; 19] = [
        Self::SessionStart,
        Self::InstructionsLoaded,
        Self::UserPromptSubmit,
        Self::UserPromptExpansion,
        Self::PreToolUse,
        Self::PermissionRequest,
        Self::PostToolUse,
        Self::PostToolUseFailure,
        Self::PostToolBatch,
        Self::Notification,
        Self::SubagentStart,
        Self::SubagentStop,
        Self::TaskCreated,
        Self::TaskCompleted,
        Self::Stop,
        Self::StopFailure,
        Self::PreCompact,
        Self::PostCompact,
        Self::SessionEnd,
    ];

    /// The name in settings and in `hook_event_name`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::SessionStart => "SessionStart",
            Self::InstructionsLoaded => "InstructionsLoaded",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::UserPromptExpansion => "UserPromptExpansion",
            Self::PreToolUse => "PreToolUse",
            Self::PermissionRequest => "PermissionRequest",
            Self::PostToolUse => "PostToolUse",
            Self::PostToolUseFailure => "PostToolUseFailure",
            Self::PostToolBatch => "PostToolBatch",
            Self::Notification => "Notification",
            Self::SubagentStart => "SubagentStart",
            Self::SubagentStop => "SubagentStop",
            Self::TaskCreated => "TaskCreated",
            Self::TaskCompleted => "TaskCompleted",
            Self::Stop => "Stop",
            Self::StopFailure => "StopFailure",
            Self::PreCompact => "PreCompact",
            Self::PostCompact => "PostCompact",
            Self::SessionEnd => "SessionEnd",
        }
    }

    /// The event named `name`.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|event| event.as_str() == name)
    }

    /// Whether the event reads its matcher: the reference's events without matcher support
    /// (`UserPromptSubmit`, `PostToolBatch`, `Stop`, `TaskCreated`, `TaskCompleted`) ignore it.
    pub(crate) fn has_matcher(self) -> bool {
        !matches!(
            self,
            Self::UserPromptSubmit
                | Self::PostToolBatch
                | Self::Stop
                | Self::TaskCreated
                | Self::TaskCompleted
        )
    }
}

/// What runs a hook (the `type` of a hook handler).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookKind {
    /// A shell command, the input on stdin.
    Command,
    /// A POST of the input to a URL.
    Http,
    /// The session's model judges the input.
    Prompt,
    /// A tool of a connected MCP server.
    McpTool,
}

impl HookKind {
    /// The kind named `name`; `None` for `agent` and unknown types (not run).
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        match name {
            "command" => Some(Self::Command),
            "http" => Some(Self::Http),
            "prompt" => Some(Self::Prompt),
            "mcp_tool" => Some(Self::McpTool),
            _ => None,
        }
    }
}

/// One hook handler, in Claude Code's shape: `{"type": "command", "command": "...", "timeout":
/// 30}`, `{"type": "http", "url": "...", "headers": {...}, "allowedEnvVars": [...]}`,
/// `{"type": "prompt", "prompt": "... $ARGUMENTS"}` or `{"type": "mcp_tool", "server": "...",
/// "tool": "...", "input": {...}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HookCommand {
    /// `command`, `http`, `prompt` or `mcp_tool` (`agent` is skipped).
    #[serde(rename = "type", default = "command_type")]
    pub kind: String,
    /// `command`: the bash command; `$CLAUDE_PROJECT_DIR` names the project.
    #[serde(default)]
    pub command: String,
    /// Seconds before the hook is cancelled (defaults: 600 for `command`, `http` and
    /// `mcp_tool`, 30 on `UserPromptSubmit`; 30 for `prompt`; `SessionEnd` 1.5 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// `async`: the hook runs in the background and never holds the action up; its decision is
    /// ignored, and a `systemMessage` or `additionalContext` it prints reaches the model before
    /// its next request (Claude Code's hooks reference, "Run hooks in the background",
    /// <https://code.claude.com/docs/en/hooks>).
    #[serde(default, rename = "async", skip_serializing_if = "std::ops::Not::not")]
    pub run_async: bool,
    /// `http`: the URL the input is POSTed to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `http`: headers sent; `$VAR` / `${VAR}` in a value read the environment for the
    /// variables of `allowed_env_vars` (others become empty).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// `http`: the environment variables a header may read.
    #[serde(
        default,
        rename = "allowedEnvVars",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub allowed_env_vars: Vec<String>,
    /// `prompt`: the text the model judges; `$ARGUMENTS` is the input JSON (appended when
    /// absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// `prompt`: the model (the session's when absent or unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `mcp_tool`: the configured MCP server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// `mcp_tool`: the tool of that server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// `mcp_tool`: the tool's arguments; `${path}` in a string reads the input JSON
    /// (`${tool_input.file_path}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<BTreeMap<String, serde_json::Value>>")]
    pub input: Option<serde_json::Value>,
}

fn command_type() -> String {
    "command".to_string()
}

impl HookCommand {
    /// A `command` hook running `command`.
    pub fn shell(command: impl Into<String>) -> Self {
        Self {
            kind: command_type(),
            command: command.into(),
            ..Self::default()
        }
    }

    /// What runs it; `None` when it cannot run (an unknown type, or its required field empty).
    pub(crate) fn runnable_kind(&self) -> Option<HookKind> {
        let kind = HookKind::from_name(&self.kind)?;
        let present =
            |field: &Option<String>| field.as_deref().is_some_and(|v| !v.trim().is_empty());
        let ready = match kind {
            HookKind::Command => !self.command.trim().is_empty(),
            HookKind::Http => present(&self.url),
            HookKind::Prompt => present(&self.prompt),
            HookKind::McpTool => present(&self.server) && present(&self.tool),
        };
        ready.then_some(kind)
    }

    /// What identifies the hook (deduplication, messages): the command, URL, prompt or
    /// `server/tool`.
    pub(crate) fn label(&self) -> String {
        match HookKind::from_name(&self.kind) {
            Some(HookKind::Http) => self.url.clone().unwrap_or_default(),
            Some(HookKind::Prompt) => self.prompt.clone().unwrap_or_default(),
            Some(HookKind::McpTool) => format!(
                "{}/{}",
                self.server.as_deref().unwrap_or_default(),
                self.tool.as_deref().unwrap_or_default()
            ),
            _ => self.command.clone(),
        }
    }

    /// The hook's timeout on `event`: its own, else the reference's default for its type and
    /// event.
    pub(crate) fn timeout_on(&self, event: HookEvent) -> Duration {
        if event == HookEvent::SessionEnd {
            return self.timeout.map_or(SESSION_END_BUDGET, |secs| {
                Duration::from_secs(secs.min(SESSION_END_MAX_SECS))
            });
        }
        if let Some(secs) = self.timeout {
            return Duration::from_secs(secs);
        }
        let secs = match HookKind::from_name(&self.kind) {
            Some(HookKind::Prompt) => DEFAULT_PROMPT_TIMEOUT_SECS,
            _ if event == HookEvent::UserPromptSubmit => USER_PROMPT_SUBMIT_TIMEOUT_SECS,
            _ => DEFAULT_HOOK_TIMEOUT_SECS,
        };
        Duration::from_secs(secs)
    }
}

/// A matcher and its hooks. The matcher is a tool name, an alternation (`Edit|Write`), a
/// regular expression, or `*` / empty / absent for everything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HookMatcher {
    /// What the event's subject (the tool name, the compaction trigger, the start source) must
    /// match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// The hooks to run.
    #[serde(default)]
    pub hooks: Vec<HookCommand>,
}

/// `[hooks]` in `config.toml`: the same shape as Claude Code's `"hooks"` object, one array of
/// matchers per event (`[[hooks.PreToolUse]]`), and whether to read the project's
/// `.claude/settings.json` and `.claude/settings.local.json` too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct HooksConfig {
    /// Run hooks at all.
    pub enabled: bool,
    /// Also read the hooks of the project's Claude Code settings files.
    pub read_project_settings: bool,
    /// Matchers per event name (the events of Claude Code's hooks reference the session has:
    /// `PreToolUse`, `PostToolUse`, `SessionEnd`, ...; docs/design/hooks.md, "Events").
    #[serde(flatten)]
    pub events: BTreeMap<String, Vec<HookMatcher>>,
}

impl Default for HooksConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            read_project_settings: true,
            events: BTreeMap::new(),
        }
    }
}

/// A hook ready to run: its event, its matcher and where it was configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfiguredHook {
    /// The event.
    pub event: HookEvent,
    /// The matcher (`None`: everything).
    pub matcher: Option<String>,
    /// The command.
    pub command: HookCommand,
    /// `config.toml` or the settings file's path.
    pub source: String,
}

/// Every hook of every source, in source order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HookSet {
    hooks: Vec<ConfiguredHook>,
}

impl HookSet {
    /// The hooks of `config` and, when it says so, of the project settings under `cwd`. A
    /// settings file that cannot be read or parsed is logged and skipped.
    pub(crate) fn load(config: &HooksConfig, cwd: &Path) -> Self {
        let mut set = Self::default();
        if !config.enabled {
            return set;
        }
        set.add(&config.events, "config.toml");
        if config.read_project_settings {
            for file in PROJECT_SETTINGS_FILES {
                let path = cwd.join(file);
                match read_settings_file(&path) {
                    Ok(Some(events)) => set.add(&events, &path.display().to_string()),
                    Ok(None) => {}
                    Err(error) => {
                        tracing::warn!(path = %path.display(), %error, "hook settings not read")
                    }
                }
            }
        }
        set
    }

    fn add(&mut self, events: &BTreeMap<String, Vec<HookMatcher>>, source: &str) {
        for (name, matchers) in events {
            let Some(event) = HookEvent::from_name(name) else {
                if EVENTS_WITHOUT_COUNTERPART.contains(&name.as_str()) {
                    tracing::info!(event = %name, source, "hook event has no counterpart in the session; skipped");
                } else {
                    tracing::info!(event = %name, source, "hook event not supported; skipped");
                }
                continue;
            };
            for matcher in matchers {
                for command in &matcher.hooks {
                    if command.runnable_kind().is_none() {
                        tracing::info!(kind = %command.kind, source, "hook skipped: its type is not run or its required field is empty");
                        continue;
                    }
                    self.hooks.push(ConfiguredHook {
                        event,
                        matcher: matcher.matcher.clone(),
                        command: command.clone(),
                        source: source.to_string(),
                    });
                }
            }
        }
    }

    /// No hook at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// The hooks of `event` whose matcher accepts one of `subjects` (tool events: the tool's
    /// name and its Claude Code name), each command (URL, prompt, tool) once, as Claude Code
    /// deduplicates.
    pub(crate) fn matching(&self, event: HookEvent, subjects: &[&str]) -> Vec<&ConfiguredHook> {
        let mut out: Vec<&ConfiguredHook> = Vec::new();
        for hook in &self.hooks {
            if hook.event != event || !event_matches(event, hook.matcher.as_deref(), subjects) {
                continue;
            }
            if out.iter().any(|seen| {
                seen.command.kind == hook.command.kind
                    && seen.command.label() == hook.command.label()
            }) {
                continue;
            }
            out.push(hook);
        }
        out
    }
}

/// Whether the hook of `event` with `matcher` runs for `subjects`: events without matcher
/// support ignore it.
pub(crate) fn event_matches(event: HookEvent, matcher: Option<&str>, subjects: &[&str]) -> bool {
    !event.has_matcher() || matches(matcher, subjects)
}

/// Whether `matcher` accepts any of `subjects`, by Claude Code's rules: absent, empty or `*`
/// accept everything; only letters, digits, `_` and `|` is an exact name or a `|` list of
/// them; anything else is a regular expression searched in the subject (`^Notebook`,
/// `mcp__memory__.*`). An invalid expression matches exactly.
pub(crate) fn matches(matcher: Option<&str>, subjects: &[&str]) -> bool {
    let matcher = matcher.map(str::trim).unwrap_or_default();
    if matcher.is_empty() || matcher == "*" || subjects.is_empty() {
        return true;
    }
    let plain = matcher
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|');
    if plain {
        return matcher.split('|').any(|name| subjects.contains(&name));
    }
    match regex::Regex::new(matcher) {
        Ok(re) => subjects.iter().any(|subject| re.is_match(subject)),
        Err(_) => subjects.contains(&matcher),
    }
}

/// The `"hooks"` object of a Claude Code settings file; `Ok(None)` when the file does not exist
/// or has no hooks.
pub(crate) fn read_settings_file(
    path: &Path,
) -> Result<Option<BTreeMap<String, Vec<HookMatcher>>>, SettingsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(SettingsError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    #[derive(Deserialize)]
    struct Settings {
        #[serde(default)]
        hooks: Option<BTreeMap<String, Vec<HookMatcher>>>,
    }
    let settings: Settings =
        serde_json::from_str(&text).map_err(|source| SettingsError::Parse {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(settings.hooks)
}

/// A settings file that could not be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SettingsError {
    /// Not readable.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not the settings shape.
    #[error("{}: {source}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
