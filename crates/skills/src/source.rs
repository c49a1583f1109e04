//! Where a command was defined ([`SkillSource`]) and in which format ([`LoadedFrom`]).

use std::fmt;

use serde::Serialize;

/// Where a skill was defined (its configuration source).
///
/// The loading priority is policy, user, project, plugin, bundled; builtin skills are
/// compiled into the binary and yield to any loaded skill of the same name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SkillSource {
    /// Hard-coded in the binary (`commit`, `review-pr`, `help`, ...).
    Builtin,
    /// Shipped skill files (`<home>/skills-bundled/`), lowest priority of the loaded sources.
    Bundled,
    /// Managed by policy; highest priority.
    Policy,
    /// The user's skills (`<home>/skills/`).
    User,
    /// The project's skills (`./.agentctx/skills/`, `./.claude/skills/`).
    Project,
    /// Skills of an installed plugin.
    Plugin {
        /// The plugin's identifier.
        plugin_id: String,
    },
}

impl fmt::Display for SkillSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Builtin => f.write_str("builtin"),
            Self::Bundled => f.write_str("bundled"),
            Self::Policy => f.write_str("policy"),
            Self::User => f.write_str("user"),
            Self::Project => f.write_str("project"),
            Self::Plugin { plugin_id } => write!(f, "plugin:{plugin_id}"),
        }
    }
}

/// How a skill was loaded (its file format).
///
/// The legacy `.claude/commands/*.md` format is deliberately not supported: only
/// `SKILL.md` files in skill directories are loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadedFrom {
    /// Hard-coded in the binary.
    Builtin,
    /// A `SKILL.md` in a policy, user or project skill directory.
    Skills,
    /// A `SKILL.md` in a plugin's skill directory.
    Plugin,
    /// A `SKILL.md` in the bundled skill directory.
    Bundled,
}

impl LoadedFrom {
    /// The format a skill found under `source` was loaded from.
    pub fn for_source(source: &SkillSource) -> Self {
        match source {
            SkillSource::Builtin => Self::Builtin,
            SkillSource::Bundled => Self::Bundled,
            SkillSource::Plugin { .. } => Self::Plugin,
            SkillSource::Policy | SkillSource::User | SkillSource::Project => Self::Skills,
        }
    }
}
