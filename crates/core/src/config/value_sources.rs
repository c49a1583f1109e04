//! [`ConfigValue`] and [`ValueSource`]: every effective value of a configuration and where it
//! came from, for `agentctx config show`.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use super::Config;
use super::EnvVars;
use super::toml_spans::push_segment;

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ValueSource {
    /// The owning crate's default.
    Default,
    /// The configuration file, at a line.
    File {
        /// The file.
        path: PathBuf,
        /// 1-based line of the key.
        line: usize,
    },
    /// An environment variable.
    Env {
        /// The variable's name.
        var: String,
    },
}

impl std::fmt::Display for ValueSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Default => f.write_str("default"),
            Self::File { path, line } => write!(f, "{}:{line}", path.display()),
            Self::Env { var } => write!(f, "env {var}"),
        }
    }
}

/// One effective value: its dotted key (`system_reminder.attachments.todo_reminder`), the value
/// as JSON (`null` for an unset optional setting) and its source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigValue {
    /// The dotted key.
    pub key: String,
    /// The value.
    pub value: Value,
    /// Where it came from.
    pub source: ValueSource,
}

/// The prefixes of the crates' environment switches.
const ENV_PREFIXES: [&str; 2] = ["AGENTCTX_", "CODEX_"];

/// The source of every leaf of `config`: a value that differs from the file's came from the
/// variable that gives it on its own (an `AGENTCTX_` name before a `CODEX_` one, as the
/// crates rank them); a key written in the file came from its line; anything else is the
/// default.
pub(crate) fn attribute(
    config: &Config,
    file_config: &Config,
    key_lines: &BTreeMap<String, usize>,
    path: &Path,
    env: &EnvVars,
) -> Vec<ConfigValue> {
    let effective = leaves(config);
    let from_file = leaves(file_config);
    let defaults = leaves(&Config::default());
    // What each switch does on its own over the file's values.
    let mut by_variable: Vec<(String, BTreeMap<String, Value>)> = Vec::new();
    for (name, value) in env.iter() {
        if !ENV_PREFIXES.iter().any(|prefix| name.starts_with(prefix)) {
            continue;
        }
        let mut single = file_config.clone();
        if single
            .apply_env(&EnvVars::from_pairs([(name, value)]))
            .is_ok()
        {
            by_variable.push((name.to_string(), leaves(&single)));
        }
    }
    by_variable.sort_by_key(|(name, _)| !name.starts_with(ENV_PREFIXES[0]));
    effective
        .into_iter()
        .map(|(key, value)| {
            let source = if from_file.get(&key) != Some(&value) {
                by_variable
                    .iter()
                    .find(|(_, single)| single.get(&key) == Some(&value))
                    .map(|(name, _)| ValueSource::Env { var: name.clone() })
            } else {
                None
            };
            let source = source
                .or_else(|| {
                    file_line(&key, &value, &defaults, key_lines).map(|line| ValueSource::File {
                        path: path.to_path_buf(),
                        line,
                    })
                })
                .unwrap_or(ValueSource::Default);
            ConfigValue { key, value, source }
        })
        .collect()
}

/// The line that set `key`: the key itself, or, for a value that differs from the default, the
/// closest enclosing key written in the file (a table written inline).
fn file_line(
    key: &str,
    value: &Value,
    defaults: &BTreeMap<String, Value>,
    key_lines: &BTreeMap<String, usize>,
) -> Option<usize> {
    if let Some(line) = key_lines.get(key) {
        return Some(*line);
    }
    if defaults.get(key) == Some(value) {
        return None;
    }
    let mut prefix = key;
    while let Some((parent, _)) = prefix.rsplit_once('.') {
        if let Some(line) = key_lines.get(parent) {
            return Some(*line);
        }
        prefix = parent;
    }
    None
}

/// Every leaf of the configuration by dotted key: scalars, arrays, `null`s and empty tables.
pub(crate) fn leaves(config: &Config) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    // The configuration is plain data: it always serializes.
    if let Ok(value) = serde_json::to_value(config) {
        flatten("", &value, &mut out);
    }
    out
}

fn flatten(prefix: &str, value: &Value, out: &mut BTreeMap<String, Value>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, inner) in map {
                flatten(&push_segment(prefix, key), inner, out);
            }
        }
        other => {
            out.insert(prefix.to_string(), other.clone());
        }
    }
}

#[cfg(test)]
#[path = "value_sources_tests.rs"]
mod tests;
