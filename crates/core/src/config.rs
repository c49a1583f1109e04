//! [`Config`]: every crate's section of `AGENTCTX_HOME/config.toml` in one struct, the
//! environment overrides each crate documents, and where each effective value came from.
//!
//! Each crate owns its section's struct and its defaults; this module only aggregates them
//! (see docs/design/configuration.md). Loading goes:
//!
//! 1. `config.toml` under the home the host resolved (the CLI reads `AGENTCTX_HOME`, default
//!    `~/.agentctx`); a missing file gives the defaults. A value that does not fit is a
//!    [`ConfigError::Invalid`] naming the file, the line, the column and the key.
//! 2. The environment switches of each crate (`AGENTCTX_DISABLE_AUTO_COMPACT`,
//!    `AGENTCTX_ENABLE_TOKEN_USAGE`, …), read from an explicit [`EnvVars`] list: the library
//!    never reads the process environment, except in [`EnvVars::from_process_env`].
//! 3. [`LoadedConfig::values`]: every effective value with its [`ValueSource`] (default,
//!    `file:line`, or the variable that set it), which `agentctx config show` prints.

mod env_vars;
mod toml_spans;
mod value_sources;

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;

use agentctx_compact::CompactConfig;
use agentctx_loop_driver::LoopConfig;
use agentctx_model::ModelConfig;
use agentctx_reminders::SystemReminderConfig;
use agentctx_skills::SkillsConfig;
use schemars::JsonSchema;

use crate::mcp_ext::McpServerConfig;
use serde::Deserialize;
use serde::Serialize;

pub use self::env_vars::EnvVars;
pub use self::value_sources::ConfigValue;
pub use self::value_sources::ValueSource;

/// The configuration file's name under the agentctx home.
pub const CONFIG_FILE: &str = "config.toml";

/// The agentctx configuration (`AGENTCTX_HOME/config.toml`): one section per crate, each the
/// crate's own settings. The model and provider keys sit at the top level, as codex spells
/// them: `model`, `model_provider`, `[model_providers.<id>]` and `[thinking]`.
//
// A crate that lands later adds one field here named after its table (the memory pipeline's
// `[memory]`, the loop driver's `[loop]`) and its switches to `Config::apply_env`; the schema,
// `config show` and the error locations follow the struct with nothing else to change.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct Config {
    /// Model and provider selection (`agentctx_model::ModelConfig`), at the top level.
    #[serde(flatten)]
    pub model: ModelConfig,
    /// `[system_reminder]` (`agentctx_reminders::SystemReminderConfig`).
    pub system_reminder: SystemReminderConfig,
    /// `[compact]` (`agentctx_compact::CompactConfig`).
    pub compact: CompactConfig,
    /// `[skills]` (`agentctx_skills::SkillsConfig`).
    pub skills: SkillsConfig,
    /// `[memory]` (`crate::memory_ext::MemorySettings`).
    pub memory: crate::memory_ext::MemorySettings,
    /// `[history]` (`agentctx_context::MessageHistoryConfig`): the prompts typed, one line each
    /// in `<home>/history.jsonl`, as codex keeps them.
    pub history: agentctx_context::MessageHistoryConfig,
    /// `[hooks]` (`crate::hooks_ext::HooksConfig`), Claude Code's hook settings shape.
    pub hooks: crate::hooks_ext::HooksConfig,
    /// `[loop]` (`agentctx_loop_driver::LoopConfig`), read by `agentctx loop`. The field is not
    /// named `loop` because that is a Rust keyword; the table is.
    #[serde(rename = "loop")]
    pub loop_driver: LoopConfig,
    /// `[mcp_servers.<name>]`: MCP servers, in codex's keys (`crate::mcp_ext`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// `[lsp.<language>]`: language servers whose diagnostics reach the model after an edit
    /// (`agentctx_lsp::LspServerConfig`; docs/design/lsp.md).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub lsp: BTreeMap<String, agentctx_lsp::LspServerConfig>,
}

/// A configuration that could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML, or a value does not fit its key.
    #[error("{}", invalid_message(path, *line, *column, key.as_deref(), message))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem, when the parser located it.
        line: Option<usize>,
        /// 1-based column of the problem, when the parser located it.
        column: Option<usize>,
        /// The dotted key whose value is wrong (`system_reminder.enabled`), when there is one.
        key: Option<String>,
        /// The parser's own description.
        message: String,
    },
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

fn invalid_message(
    path: &Path,
    line: Option<usize>,
    column: Option<usize>,
    key: Option<&str>,
    message: &str,
) -> String {
    let mut out = path.display().to_string();
    if let Some(line) = line {
        out.push_str(&format!(":{line}"));
        if let Some(column) = column {
            out.push_str(&format!(":{column}"));
        }
    }
    match key {
        Some(key) => out.push_str(&format!(": `{key}`: {message}")),
        None => out.push_str(&format!(": {message}")),
    }
    out
}

/// A loaded configuration: the effective values, the file they came from and the source of
/// each.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedConfig {
    /// The effective configuration (file, then environment).
    pub config: Config,
    /// The file read (or that would have been read).
    pub path: PathBuf,
    /// Whether the file exists.
    pub file_exists: bool,
    values: Vec<ConfigValue>,
}

impl LoadedConfig {
    /// Every effective value as a dotted key, its value and its source, in key order.
    pub fn values(&self) -> &[ConfigValue] {
        &self.values
    }
}

impl Config {
    /// Loads `home/config.toml` (defaults when it does not exist), then applies the
    /// environment switches of `env`.
    pub fn load(home: &Path, env: &EnvVars) -> Result<LoadedConfig, ConfigError> {
        let path = home.join(CONFIG_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => return Err(ConfigError::Read { path, source }),
        };
        let file_config = match &text {
            Some(text) => Self::from_toml(text, &path)?,
            None => Self::default(),
        };
        let mut config = file_config.clone();
        config.apply_env(env)?;
        let key_lines = text
            .as_deref()
            .map(toml_spans::key_lines)
            .unwrap_or_default();
        let values = value_sources::attribute(&config, &file_config, &key_lines, &path, env);
        Ok(LoadedConfig {
            config,
            path,
            file_exists: text.is_some(),
            values,
        })
    }

    /// Parses a `config.toml` document; `path` names it in errors.
    pub fn from_toml(text: &str, path: &Path) -> Result<Self, ConfigError> {
        toml::from_str::<Self>(text).map_err(|err| {
            // The top-level model keys are read through `flatten`, whose errors point at the
            // whole document; read alone (other sections are unknown keys to it, and ignored)
            // they are located. Syntax errors come out the same either way.
            let err = toml::from_str::<ModelConfig>(text).err().unwrap_or(err);
            located(text, path, &err)
        })
    }

    /// Applies every crate's documented environment switches from `env`:
    /// `agentctx_reminders::SystemReminderConfig::apply_env_vars` (`AGENTCTX_` or `CODEX_`
    /// names) and `agentctx_compact::CompactConfig::apply_env_vars` (`AGENTCTX_` names).
    pub fn apply_env(&mut self, env: &EnvVars) -> Result<(), ConfigError> {
        self.system_reminder
            .apply_env_vars(env.iter())
            .map_err(reminder_env_error)?;
        self.compact
            .apply_env_vars(env.iter())
            .map_err(|err| match err {
                agentctx_compact::CompactConfigError::Env {
                    name,
                    value,
                    reason,
                } => ConfigError::Env {
                    name,
                    value,
                    reason,
                },
            })?;
        Ok(())
    }

    /// The compaction settings of a session on provider `provider_id`: `[compact]` with the
    /// provider's own `compact_mode` (`[model_providers.<id>]`), when it sets one, over
    /// `[compact] mode`.
    pub(crate) fn compact_for_provider(&self, provider_id: &str) -> CompactConfig {
        let mut compact = self.compact.clone();
        if let Some(mode) = self
            .model
            .model_providers
            .get(provider_id)
            .and_then(|entry| entry.compact_mode)
        {
            compact.mode = mode;
        }
        compact
    }

    /// The JSON schema of the whole file, as committed in `crates/core/config.schema.json`
    /// (pretty JSON with a trailing newline).
    pub fn json_schema() -> Result<String, serde_json::Error> {
        let schema = schemars::schema_for!(Self);
        Ok(format!("{}\n", serde_json::to_string_pretty(&schema)?))
    }
}

/// The reminder crate's error, from applying environment variables (its TOML variant comes only
/// from parsing, which `apply_env_vars` does not do; it is kept as it is all the same).
fn reminder_env_error(err: agentctx_reminders::ConfigError) -> ConfigError {
    match err {
        agentctx_reminders::ConfigError::Env {
            name,
            value,
            reason,
        } => ConfigError::Env {
            name,
            value,
            reason,
        },
        agentctx_reminders::ConfigError::Toml(err) => ConfigError::Invalid {
            path: PathBuf::new(),
            line: None,
            column: None,
            key: None,
            message: err.message().trim().to_string(),
        },
    }
}

/// A TOML error with its line, column and key.
fn located(text: &str, path: &Path, err: &toml::de::Error) -> ConfigError {
    let span = err.span();
    let (line, column) = match &span {
        Some(span) => {
            let (line, column) = toml_spans::line_column(text, span.start);
            (Some(line), Some(column))
        }
        None => (None, None),
    };
    let key = span.and_then(|span| toml_spans::key_at(text, span.start));
    ConfigError::Invalid {
        path: path.to_path_buf(),
        line,
        column,
        key,
        message: err.message().trim().to_string(),
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
