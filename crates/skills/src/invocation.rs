//! Building the prompt a skill invocation sends to the model: argument substitution
//! (`arguments.rs`), the base-directory prefix and the character budget.

use std::path::Path;
use std::path::PathBuf;

use serde::Serialize;

use crate::arguments::SESSION_ID_PLACEHOLDER;
use crate::arguments::substitute_arguments;
use crate::frontmatter::SkillContext;
use crate::frontmatter::SkillHooksConfig;
use crate::skill::SkillPromptCommand;
use crate::source::SkillSource;

/// Maximum characters of a skill prompt.
pub(crate) const SKILL_PROMPT_MAX_CHARS: usize = 15000;
/// Truncates `content` to [`SKILL_PROMPT_MAX_CHARS`] characters and appends the
/// truncation notice when it is longer. Counts characters, so it never splits one.
pub(crate) fn apply_skill_token_budget(content: &str) -> String {
    match content.char_indices().nth(SKILL_PROMPT_MAX_CHARS) {
        None => content.to_string(),
        Some((cut, _)) => {
            let truncated = content.get(..cut).unwrap_or(content);
            format!(
                "{truncated}\n\n[Content truncated - exceeded {SKILL_PROMPT_MAX_CHARS} character limit]"
            )
        }
    }
}

/// The line announcing a skill's directory, so relative paths in it can be resolved.
pub(crate) fn base_dir_prefix(base_dir: &Path) -> String {
    format!("Base directory for this skill: {}\n\n", base_dir.display())
}

/// The full prompt of `skill` invoked with `args`: base-directory prefix, content with
/// arguments injected, then the budget.
pub(crate) fn build_skill_prompt(skill: &SkillPromptCommand, args: &str) -> String {
    let mut prompt = String::new();
    if let Some(base_dir) = &skill.base_dir {
        prompt.push_str(&base_dir_prefix(base_dir));
    }
    prompt.push_str(&substitute_arguments(
        &skill.content,
        args,
        &skill.argument_names,
        skill.path.as_deref().and_then(Path::parent),
    ));
    apply_skill_token_budget(&prompt)
}

/// A prompt command ready to run: the prompt and the execution settings of the skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillInvocation {
    /// The skill's name.
    pub name: String,
    /// Where the skill came from.
    pub source: SkillSource,
    /// The `SKILL.md` (for the `invoked_skills` reminder), `None` for builtins.
    pub path: Option<PathBuf>,
    /// The arguments as given.
    pub args: String,
    /// The prompt for the model.
    pub prompt: String,
    /// Tool restrictions.
    pub allowed_tools: Option<Vec<String>>,
    /// Model override (never `inherit`).
    pub model: Option<String>,
    /// Execution context.
    pub context: SkillContext,
    /// Agent type for the `fork` context.
    pub agent: Option<String>,
    /// The skill's hooks, run while the skill is active.
    pub hooks: Option<SkillHooksConfig>,
}

impl SkillInvocation {
    /// The invocation of `skill` with `args`.
    pub fn new(skill: &SkillPromptCommand, args: &str) -> Self {
        Self {
            name: skill.name.clone(),
            source: skill.source.clone(),
            path: skill.path.clone(),
            args: args.trim().to_string(),
            prompt: build_skill_prompt(skill, args),
            allowed_tools: skill.allowed_tools.clone(),
            model: skill.model_override().map(str::to_string),
            context: skill.context,
            agent: skill.agent.clone(),
            hooks: skill.hooks.clone(),
        }
    }

    /// This invocation's prompt with `${CLAUDE_SESSION_ID}` replaced by the id of the session
    /// it runs in (Claude Code fills it in after the arguments, `getPromptForCommand` in its
    /// `src/skills/loadSkillsDir.ts`; documented among the skills' string substitutions at
    /// <https://code.claude.com/docs/en/skills>). The registry does not know the session; the
    /// host calls this before the prompt is used.
    #[must_use]
    pub fn in_session(mut self, session_id: &str) -> Self {
        if self.prompt.contains(SESSION_ID_PLACEHOLDER) {
            self.prompt = self.prompt.replace(SESSION_ID_PLACEHOLDER, session_id);
        }
        self
    }
}

#[cfg(test)]
#[path = "invocation_tests.rs"]
mod tests;
