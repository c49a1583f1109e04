//! The text of the local `/help` command.

use std::fmt::Write;

use crate::registry::CommandRegistry;
use crate::slash_command::SlashCommand;
use crate::source::SkillSource;

/// Renders `/help`: builtin commands, then the user's skills, each sorted by name.
pub fn render_help(registry: &CommandRegistry) -> String {
    let mut builtin: Vec<&SlashCommand> = registry
        .get_all_commands()
        .iter()
        .filter(|command| command.source() == SkillSource::Builtin && command.is_user_invocable())
        .collect();
    builtin.sort_by(|a, b| a.name().cmp(b.name()));
    let mut skills = registry.get_user_skills();
    skills.sort_by(|a, b| a.name.cmp(&b.name));

    let mut text = String::from("Commands:\n");
    for command in builtin {
        push_line(
            &mut text,
            command.name(),
            command.argument_hint(),
            command.description(),
        );
    }
    text.push_str("\nSkills:\n");
    if skills.is_empty() {
        text.push_str("  (none: add one as .agentctx/skills/<name>/SKILL.md)\n");
    }
    for skill in skills {
        push_line(
            &mut text,
            &skill.name,
            skill.argument_hint.as_deref(),
            &skill.description,
        );
    }
    text
}

fn push_line(text: &mut String, name: &str, hint: Option<&str>, description: &str) {
    let usage = match hint {
        Some(hint) => format!("/{name} {hint}"),
        None => format!("/{name}"),
    };
    // Writing to a String cannot fail.
    let _ = writeln!(text, "  {usage} - {description}");
}
