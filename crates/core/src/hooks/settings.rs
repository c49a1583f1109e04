//! Hook settings in Claude Code's shape: event → matchers → command hooks with a timeout, from
//! `[hooks]` in `config.toml` and from a project's `.claude/settings.json` and
//! `.claude/settings.local.json` (read unchanged: other keys, other events and other hook
//! types are skipped and logged). See docs/design/hooks.md, "Settings", and Claude Code's hooks
//! reference, <https://docs.anthropic.com/en/docs/claude-code/hooks> ("Configuration").

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// Seconds a hook may run when its settings give no `timeout` (Claude Code's default).
pub(crate) const DEFAULT_HOOK_TIMEOUT_SECS: u64 = 60;

/// The project settings files read, in order, relative to the working directory.
pub(crate) const PROJECT_SETTINGS_FILES: [&str; 2] =
    [".claude/settings.json", ".claude/settings.local.json"];

/// The events a hook can run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum HookEvent {
    /// Before a tool call; may block it.
    PreToolUse,
    /// After a tool call; may tell the model something.
    PostToolUse,
    /// Before the user's message is sent; may add context or block it.
    UserPromptSubmit,
    /// Before a compaction.
    PreCompact,
    /// When the session starts its first turn.
    SessionStart,
    /// When the model ends its turn; may make it go on.
    Stop,
    /// When a subagent (`task`) finished.
    SubagentStop,
}

impl HookEvent {
    /// Every event.
    pub(crate) const ALL: [Self; 7] = [
        Self::PreToolUse,
        Self::PostToolUse,
        Self::UserPromptSubmit,
        Self::PreCompact,
        Self::SessionStart,
        Self::Stop,
        Self::SubagentStop,
    ];

    /// The name in settings and in `hook_event_name`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::PreCompact => "PreCompact",
            Self::SessionStart => "SessionStart",
            Self::Stop => "Stop",
            Self::SubagentStop => "SubagentStop",
        }
    }

    /// The event named `name`.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|event| event.as_str() == name)
    }
}

/// One hook: `{"type": "command", "command": "...", "timeout": 30}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HookCommand {
    /// `command` (the only type run; others are skipped).
    #[serde(rename = "type", default = "command_type")]
    pub kind: String,
    /// The bash command; `$CLAUDE_PROJECT_DIR` names the project.
    #[serde(default)]
    pub command: String,
    /// Seconds before the hook is killed (default 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// `async`: the hook runs in the background and never holds the action up; its decision is
    /// ignored, and a `systemMessage` or `additionalContext` it prints reaches the model before
    /// its next request (Claude Code's hooks reference, "Run hooks in the background",
    /// <https://code.claude.com/docs/en/hooks>).
    #[serde(default, rename = "async", skip_serializing_if = "std::ops::Not::not")]
    pub run_async: bool,
}

fn command_type() -> String {
    "command".to_string()
}

impl HookCommand {
    /// The hook's timeout.
    pub(crate) fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout.unwrap_or(DEFAULT_HOOK_TIMEOUT_SECS))
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
    /// Matchers per event name (`PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `PreCompact`,
    /// `SessionStart`, `Stop`, `SubagentStop`).
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
                tracing::info!(event = %name, source, "hook event not supported; skipped");
                continue;
            };
            for matcher in matchers {
                for command in &matcher.hooks {
                    if command.kind != "command" || command.command.trim().is_empty() {
                        tracing::info!(kind = %command.kind, source, "hook skipped: only command hooks run");
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
    /// name and its Claude Code name), each command once (as Claude Code deduplicates).
    pub(crate) fn matching(&self, event: HookEvent, subjects: &[&str]) -> Vec<&ConfiguredHook> {
        let mut out: Vec<&ConfiguredHook> = Vec::new();
        for hook in &self.hooks {
            if hook.event != event || !matches(hook.matcher.as_deref(), subjects) {
                continue;
            }
            if out
                .iter()
                .any(|seen| seen.command.command == hook.command.command)
            {
                continue;
            }
            out.push(hook);
        }
        out
    }
}

/// Whether `matcher` accepts any of `subjects`: absent, empty or `*` accept everything; else the
/// matcher is a regular expression over the whole subject (a plain name is an exact match). An
/// invalid expression matches exactly.
pub(crate) fn matches(matcher: Option<&str>, subjects: &[&str]) -> bool {
    let matcher = matcher.map(str::trim).unwrap_or_default();
    if matcher.is_empty() || matcher == "*" || subjects.is_empty() {
        return true;
    }
    match regex::Regex::new(&format!("^(?:{matcher})$")) {
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
