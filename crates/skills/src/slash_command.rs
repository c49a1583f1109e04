//! [`SlashCommand`]: the union of local and prompt commands, and parsing `/name args`.

use serde::Serialize;

use crate::builtin::LocalCommand;
use crate::skill::SkillPromptCommand;
use crate::source::SkillSource;

/// One command of the unified registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[expect(
    clippy::large_enum_variant,
    reason = "a registry holds tens of commands; boxing would only add indirection"
)]
pub enum SlashCommand {
    /// Handled locally, without the model (`/help`, `/clear`, `/compact`).
    Local(LocalCommand),
    /// Expanded into a prompt for the model; every skill is one.
    Prompt(SkillPromptCommand),
}

impl SlashCommand {
    /// The command name.
    pub fn name(&self) -> &str {
        match self {
            Self::Local(command) => &command.name,
            Self::Prompt(command) => &command.name,
        }
    }

    /// The description.
    pub fn description(&self) -> &str {
        match self {
            Self::Local(command) => &command.description,
            Self::Prompt(command) => &command.description,
        }
    }

    /// The usage hint.
    pub fn argument_hint(&self) -> Option<&str> {
        match self {
            Self::Local(command) => command.argument_hint.as_deref(),
            Self::Prompt(command) => command.argument_hint.as_deref(),
        }
    }

    /// Alternative names.
    pub fn aliases(&self) -> &[String] {
        match self {
            Self::Local(command) => &command.aliases,
            Self::Prompt(command) => &command.aliases,
        }
    }

    /// Where it was defined; local commands are builtin.
    pub fn source(&self) -> SkillSource {
        match self {
            Self::Local(_) => SkillSource::Builtin,
            Self::Prompt(command) => command.source.clone(),
        }
    }

    /// Whether the user may type it; hidden skills cannot be.
    pub fn is_user_invocable(&self) -> bool {
        match self {
            Self::Local(_) => true,
            Self::Prompt(command) => command.user_invocable,
        }
    }
}

/// `/name args` split into its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ParsedSlashCommand<'a> {
    /// The name without the slash.
    pub(crate) name: &'a str,
    /// Everything after the name, trimmed.
    pub(crate) args: &'a str,
}

/// Parses user input as a slash command; `None` when it is not one (no leading `/`, an
/// empty name, or a path such as `/usr/bin/env`).
pub(crate) fn parse_slash_command(input: &str) -> Option<ParsedSlashCommand<'_>> {
    let rest = input.trim_start().strip_prefix('/')?;
    let (name, args) = match rest.find(char::is_whitespace) {
        Some(end) => (rest.get(..end)?, rest.get(end..)?),
        None => (rest, ""),
    };
    if name.is_empty() || name.contains('/') {
        return None;
    }
    Some(ParsedSlashCommand {
        name,
        args: args.trim(),
    })
}
