//! Turning the text of one `SKILL.md` into a [`SkillPromptCommand`].

use std::path::Path;

use crate::frontmatter::FrontmatterError;
use crate::frontmatter::first_heading;
use crate::frontmatter::parse_skill_frontmatter;
use crate::frontmatter::split_frontmatter;
use crate::skill::SkillPromptCommand;
use crate::source::LoadedFrom;
use crate::source::SkillSource;

/// File name of a skill, case-sensitive.
pub(crate) const SKILL_MD_FILE: &str = "SKILL.md";

/// Why a `SKILL.md` was rejected.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SkillFileError {
    /// The frontmatter is malformed.
    #[error(transparent)]
    Frontmatter(#[from] FrontmatterError),
    /// The command name cannot be typed as `/name`.
    #[error("invalid skill name `{name}`: {reason}")]
    InvalidName {
        /// The rejected name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}

/// Parses a `SKILL.md`'s text. `skill_dir` is the directory holding it (its name is the
/// default command name); the returned skill has no interface metadata yet.
pub(crate) fn parse_skill_file(
    skill_dir: &Path,
    text: &str,
    source: SkillSource,
) -> Result<SkillPromptCommand, SkillFileError> {
    let split = split_frontmatter(text)?;
    let frontmatter = match split.frontmatter {
        // The blank line stands for the opening `---`, so YAML error line numbers are
        // line numbers of the file.
        Some(yaml) => parse_skill_frontmatter(&format!("\n{yaml}"))?,
        None => Default::default(),
    };
    let dir_name = skill_dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = non_empty(frontmatter.name).unwrap_or(dir_name);
    validate_command_name(&name)?;
    let aliases = frontmatter.aliases.unwrap_or_default();
    for alias in &aliases {
        validate_command_name(alias)?;
    }
    let body = split.body.trim_start_matches(['\n', '\r']);
    let (description, has_description) = match non_empty(frontmatter.description) {
        Some(description) => (description, true),
        None => (first_heading(body).unwrap_or_default(), false),
    };
    let base_dir = match frontmatter.base_dir {
        Some(dir) if dir.is_absolute() => dir,
        Some(dir) => skill_dir.join(dir),
        None => skill_dir.to_path_buf(),
    };
    Ok(SkillPromptCommand {
        name,
        description,
        has_description,
        when_to_use: non_empty(frontmatter.when_to_use),
        content: body.to_string(),
        loaded_from: LoadedFrom::for_source(&source),
        source,
        user_invocable: frontmatter.user_invocable.unwrap_or(true),
        disable_model_invocation: frontmatter.disable_model_invocation.unwrap_or(false),
        allowed_tools: frontmatter.allowed_tools,
        aliases,
        model: non_empty(frontmatter.model),
        argument_hint: non_empty(frontmatter.argument_hint),
        argument_names: frontmatter.arguments.unwrap_or_default(),
        context: frontmatter.context.unwrap_or_default(),
        agent: non_empty(frontmatter.agent),
        base_dir: Some(base_dir),
        path: Some(skill_dir.join(SKILL_MD_FILE)),
        hooks: frontmatter.hooks,
        interface: None,
    })
}

/// Checks that `name` can be typed as `/name`: not empty, no whitespace, no `/`.
pub(crate) fn validate_command_name(name: &str) -> Result<(), SkillFileError> {
    let reason = if name.is_empty() {
        "it is empty"
    } else if name.chars().any(char::is_whitespace) {
        "it contains whitespace"
    } else if name.contains('/') {
        "it contains `/`"
    } else {
        return Ok(());
    };
    Err(SkillFileError::InvalidName {
        name: name.to_string(),
        reason,
    })
}

fn non_empty(value: Option<String>) -> Option<String> {
    value
        .map(|text| text.trim().to_string())
        .filter(|text| !text.is_empty())
}

#[cfg(test)]
#[path = "skill_file_tests.rs"]
mod tests;
