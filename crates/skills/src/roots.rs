//! [`SkillRoots`]: the skill directories to load from, in priority order.
//!
//! The roots are always passed in explicitly, so nothing here looks at the real home
//! directory or the environment; the CLI and core resolve them.

use std::path::Path;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use crate::source::SkillSource;

/// Sub-directory of the agentctx home holding the user's skills.
pub(crate) const USER_SKILLS_DIR: &str = "skills";
/// Sub-directory of the agentctx home holding bundled skills.
pub(crate) const BUNDLED_SKILLS_DIR: &str = "skills-bundled";
/// Project skill directories, relative to the project directory, in priority order.
pub(crate) const PROJECT_SKILLS_DIRS: [&str; 2] = [".agentctx/skills", ".claude/skills"];

/// A plugin's skill directory.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct PluginSkillDir {
    /// The plugin's identifier.
    pub plugin_id: String,
    /// Directory whose sub-directories hold `SKILL.md` files.
    pub dir: PathBuf,
}

/// Where skills are loaded from. Also the key of the [`crate::SkillCache`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SkillRoots {
    /// Managed (policy) skill directory: highest priority.
    pub policy_dir: Option<PathBuf>,
    /// The agentctx home; user skills are under `<home>/skills/`.
    pub home_dir: Option<PathBuf>,
    /// The project directory; skills under `.agentctx/skills/` then `.claude/skills/`.
    pub project_dir: Option<PathBuf>,
    /// Plugin skill directories, in order.
    pub plugin_dirs: Vec<PluginSkillDir>,
    /// Bundled skill directory; defaults to `<home>/skills-bundled/`.
    pub bundled_dir: Option<PathBuf>,
}

/// One directory of skills and the source its skills get.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub(crate) struct SkillRoot {
    /// Directory whose sub-directories hold `SKILL.md` files.
    pub(crate) dir: PathBuf,
    /// Source of the skills found there.
    pub(crate) source: SkillSource,
}

impl SkillRoots {
    /// Roots for an agentctx home and a project directory, with no policy or plugin dirs.
    pub fn new(home_dir: impl Into<PathBuf>, project_dir: impl Into<PathBuf>) -> Self {
        Self {
            home_dir: Some(home_dir.into()),
            project_dir: Some(project_dir.into()),
            ..Self::default()
        }
    }

    /// Every skill directory in priority order: policy, user, project (`.agentctx`, then
    /// `.claude`), plugins, bundled.
    pub(crate) fn roots(&self) -> Vec<SkillRoot> {
        let mut roots = Vec::new();
        let mut push = |dir: PathBuf, source: SkillSource| roots.push(SkillRoot { dir, source });
        if let Some(dir) = &self.policy_dir {
            push(dir.clone(), SkillSource::Policy);
        }
        if let Some(home) = &self.home_dir {
            push(home.join(USER_SKILLS_DIR), SkillSource::User);
        }
        if let Some(project) = &self.project_dir {
            for relative in PROJECT_SKILLS_DIRS {
                push(project.join(relative), SkillSource::Project);
            }
        }
        for plugin in &self.plugin_dirs {
            push(
                plugin.dir.clone(),
                SkillSource::Plugin {
                    plugin_id: plugin.plugin_id.clone(),
                },
            );
        }
        let bundled = self
            .bundled_dir
            .clone()
            .or_else(|| self.home_dir.as_deref().map(bundled_under));
        if let Some(dir) = bundled {
            push(dir, SkillSource::Bundled);
        }
        roots
    }
}

fn bundled_under(home: &Path) -> PathBuf {
    home.join(BUNDLED_SKILLS_DIR)
}
