//! [`EnvVars`]: the environment variables a configuration is loaded with, as an explicit list.

use std::collections::BTreeMap;

/// Environment variables by name. Tests and hosts pass their own list; only
/// [`EnvVars::from_process_env`] reads the process environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvVars {
    vars: BTreeMap<String, String>,
}

impl EnvVars {
    /// No variables.
    pub fn new() -> Self {
        Self::default()
    }

    /// The given variables.
    pub fn from_pairs<I, K, V>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        Self {
            vars: pairs
                .into_iter()
                .map(|(name, value)| (name.into(), value.into()))
                .collect(),
        }
    }

    /// The process environment: the one place the library reads it. Variables whose name or
    /// value is not UTF-8 are left out (none of ours is).
    pub fn from_process_env() -> Self {
        Self {
            vars: std::env::vars_os()
                .filter_map(|(name, value)| {
                    Some((name.into_string().ok()?, value.into_string().ok()?))
                })
                .collect(),
        }
    }

    /// A variable's value.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// The variables in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }

    /// A lookup closure, as `agentctx_model::ModelConfig::resolve_provider` takes.
    pub fn lookup(&self) -> impl Fn(&str) -> Option<String> + '_ {
        |name| self.get(name).map(str::to_string)
    }
}
