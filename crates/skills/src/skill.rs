//! [`SkillPromptCommand`]: a skill, which is always a prompt command.

use std::path::PathBuf;

use serde::Serialize;

use crate::frontmatter::SkillContext;
use crate::frontmatter::SkillHooksConfig;
use crate::interface::SkillInterface;
use crate::source::LoadedFrom;
use crate::source::SkillSource;

/// The model value meaning "use the session's model".
pub(crate) const INHERIT_MODEL: &str = "inherit";

/// A skill: a prompt command of the unified slash-command registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillPromptCommand {
    /// Command name, invoked as `/name`.
    pub name: String,
    /// Description: from the frontmatter, else the first markdown heading, else empty.
    pub description: String,
    /// Whether the description was written in the frontmatter (not a heading fallback).
    pub has_description: bool,
    /// Guidance telling the model when to use the skill.
    pub when_to_use: Option<String>,
    /// The markdown prompt (the file's body, without frontmatter).
    pub content: String,
    /// Where the skill was defined.
    pub source: SkillSource,
    /// How it was loaded.
    pub loaded_from: LoadedFrom,
    /// Whether the user may invoke it as `/name`.
    pub user_invocable: bool,
    /// Whether the model is kept from invoking it.
    pub disable_model_invocation: bool,
    /// Tool restrictions, `None` for no restriction.
    pub allowed_tools: Option<Vec<String>>,
    /// Alternative command names.
    pub aliases: Vec<String>,
    /// Model override as written (`haiku`, `sonnet`, `opus`, `inherit`).
    pub model: Option<String>,
    /// Usage hint shown in `/help`.
    pub argument_hint: Option<String>,
    /// Names of the positional arguments (`arguments` in the frontmatter), in order: `$name`
    /// in the prompt is the argument at that position.
    pub argument_names: Vec<String>,
    /// Execution context.
    pub context: SkillContext,
    /// Agent type for the `fork` context.
    pub agent: Option<String>,
    /// Directory the skill's relative paths refer to; announced to the model.
    pub base_dir: Option<PathBuf>,
    /// The `SKILL.md` the skill was read from, `None` for builtins.
    pub path: Option<PathBuf>,
    /// Skill-level hooks.
    pub hooks: Option<SkillHooksConfig>,
    /// UI metadata from `SKILL.toml`.
    pub interface: Option<SkillInterface>,
}

impl SkillPromptCommand {
    /// Hidden from `/help`: computed as `!user_invocable`.
    pub fn is_hidden(&self) -> bool {
        !self.user_invocable
    }

    /// Whether the skill is eligible for model invocation: not disabled for the model,
    /// not builtin, and described (frontmatter description or `when_to_use`).
    pub fn is_llm_invocable(&self) -> bool {
        !self.disable_model_invocation && self.source != SkillSource::Builtin && self.is_described()
    }

    /// Whether the skill appears among the user's skills in `/help`.
    pub fn is_user_visible_skill(&self) -> bool {
        self.source != SkillSource::Builtin && !self.is_hidden() && self.is_described()
    }

    /// The model to switch to, `None` when absent or `inherit`.
    pub fn model_override(&self) -> Option<&str> {
        self.model
            .as_deref()
            .filter(|model| !model.eq_ignore_ascii_case(INHERIT_MODEL))
    }

    /// Whether `name` is this skill's name or one of its aliases.
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.iter().any(|alias| alias == name)
    }

    fn is_described(&self) -> bool {
        self.has_description || self.when_to_use.is_some()
    }
}
