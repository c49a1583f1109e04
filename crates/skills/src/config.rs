//! [`SkillsConfig`]: the `[skills]` section of `config.toml`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use crate::roots::PluginSkillDir;
use crate::usage::DEFAULT_USAGE_HALF_LIFE_DAYS;

/// Configuration of skills and slash commands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SkillsConfig {
    /// Command names to disable (skills and builtin commands alike).
    pub disabled: Vec<String>,
    /// Managed (policy) skill directory, the highest priority source.
    pub policy_dir: Option<PathBuf>,
    /// Plugin skill directories, after project skills in priority.
    pub plugin_dirs: Vec<PluginSkillDir>,
    /// Bundled skill directory; defaults to `<home>/skills-bundled/`.
    pub bundled_dir: Option<PathBuf>,
    /// Half-life of a skill use for usage ordering, in days.
    pub usage_half_life_days: f64,
}

impl Default for SkillsConfig {
    fn default() -> Self {
        Self {
            disabled: Vec::new(),
            policy_dir: None,
            plugin_dirs: Vec::new(),
            bundled_dir: None,
            usage_half_life_days: DEFAULT_USAGE_HALF_LIFE_DAYS,
        }
    }
}

impl SkillsConfig {
    /// The skill roots for an agentctx home and a project directory under this config.
    pub fn roots(
        &self,
        home_dir: impl Into<PathBuf>,
        project_dir: impl Into<PathBuf>,
    ) -> crate::SkillRoots {
        crate::SkillRoots {
            policy_dir: self.policy_dir.clone(),
            home_dir: Some(home_dir.into()),
            project_dir: Some(project_dir.into()),
            plugin_dirs: self.plugin_dirs.clone(),
            bundled_dir: self.bundled_dir.clone(),
        }
    }
}
