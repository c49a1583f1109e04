//! `agentctx skills`: list and inspect the slash commands and skills a session would see.

use std::io::Write;
use std::path::PathBuf;

use agentctx_skills::CommandRegistry;
use agentctx_skills::SkillInvocation;
use agentctx_skills::SkillLoadOutcome;
use agentctx_skills::SkillPromptCommand;
use agentctx_skills::SkillsConfig;
use agentctx_skills::SlashCommand;
use agentctx_skills::load_skills;
use anyhow::Context;
use serde::Serialize;

/// Longest description shown in the `list` table, in characters.
const LIST_DESCRIPTION_CHARS: usize = 60;

#[derive(Debug, clap::Args)]
pub(crate) struct SkillsArgs {
    #[command(subcommand)]
    command: SkillsCommand,

    /// Project directory: skills under `.agentctx/skills/` and `.claude/skills/` [default: current directory]
    #[arg(long, global = true, value_name = "DIR")]
    cwd: Option<PathBuf>,

    /// agentctx home: user skills under `<home>/skills/`, bundled under `<home>/skills-bundled/` [default: ~/.agentctx]
    #[arg(long, global = true, env = "AGENTCTX_HOME", value_name = "DIR")]
    home: Option<PathBuf>,

    /// Print JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, clap::Subcommand)]
enum SkillsCommand {
    /// List every enabled command: skills, builtin prompts and local commands.
    List,
    /// Show one command and, for a prompt command, the prompt the model would receive.
    Show {
        /// Command name or alias (a leading `/` is accepted).
        name: String,
        /// Arguments to render the prompt with, as after `/name`.
        #[arg(long, default_value = "", allow_hyphen_values = true)]
        args: String,
    },
}

pub(crate) fn run(args: SkillsArgs) -> anyhow::Result<()> {
    let project = match args.cwd {
        Some(dir) => dir,
        None => std::env::current_dir().context("cannot determine the current directory")?,
    };
    let home = match args.home {
        Some(dir) => dir,
        None => std::env::home_dir()
            .map(|dir| dir.join(".agentctx"))
            .context("no home directory: pass --home or set AGENTCTX_HOME")?,
    };
    let config = SkillsConfig::default();
    let outcome = load_skills(&config.roots(home, project));
    let registry = CommandRegistry::new(&outcome, &config);
    let mut stdout = std::io::stdout().lock();
    match args.command {
        SkillsCommand::List => {
            if args.json {
                write_json(&mut stdout, &list_json(&registry, &outcome))?;
            } else {
                write_list(&mut stdout, &registry)?;
                report_problems(&registry, &outcome)?;
            }
        }
        SkillsCommand::Show { name, args: input } => {
            let command = registry
                .find(&name)
                .with_context(|| format!("unknown command `{name}`; see `agentctx skills list`"))?;
            let invocation = match command {
                SlashCommand::Prompt(skill) => Some(SkillInvocation::new(skill, &input)),
                SlashCommand::Local(_) => None,
            };
            if args.json {
                let shown = ShowJson {
                    command,
                    model_invocable: model_invocable(command),
                    prompt: invocation.as_ref().map(|inv| inv.prompt.as_str()),
                };
                write_json(&mut stdout, &shown)?;
            } else {
                write_show(&mut stdout, command, invocation.as_ref())?;
            }
        }
    }
    stdout.flush()?;
    Ok(())
}

fn model_invocable(command: &SlashCommand) -> bool {
    match command {
        SlashCommand::Prompt(skill) => skill.is_llm_invocable(),
        SlashCommand::Local(_) => false,
    }
}

fn kind(command: &SlashCommand) -> &'static str {
    match command {
        SlashCommand::Local(_) => "local",
        SlashCommand::Prompt(_) => "prompt",
    }
}

fn yes_no(value: bool) -> &'static str {
    if value { "yes" } else { "no" }
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{kept}…")
}

fn write_list(out: &mut impl Write, registry: &CommandRegistry) -> anyhow::Result<()> {
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::NOTHING)
        .set_header(["NAME", "TYPE", "SOURCE", "USER", "MODEL", "DESCRIPTION"]);
    for command in registry.get_all_commands() {
        let mut name = format!("/{}", command.name());
        if !command.aliases().is_empty() {
            name.push_str(&format!(" ({})", command.aliases().join(", ")));
        }
        table.add_row([
            name,
            kind(command).to_string(),
            command.source().to_string(),
            yes_no(command.is_user_invocable()).to_string(),
            yes_no(model_invocable(command)).to_string(),
            shorten(command.description(), LIST_DESCRIPTION_CHARS),
        ]);
    }
    writeln!(out, "{}", table.trim_fmt())?;
    Ok(())
}

/// Shadowed definitions and load problems, on stderr so stdout stays the list.
fn report_problems(registry: &CommandRegistry, outcome: &SkillLoadOutcome) -> anyhow::Result<()> {
    let mut err = std::io::stderr().lock();
    for shadowed in registry.shadowed() {
        let winner = match &shadowed.winner_path {
            Some(path) => format!("{} ({})", path.display(), shadowed.winner_source),
            None => format!("the {} command", shadowed.winner_source),
        };
        writeln!(
            err,
            "note: {}: /{} ({}) is shadowed by {winner}",
            shadowed.path.display(),
            shadowed.name,
            shadowed.source
        )?;
    }
    for problem in &outcome.errors {
        writeln!(
            err,
            "warning: {}: {}",
            problem.path.display(),
            problem.reason
        )?;
    }
    Ok(())
}

fn write_show(
    out: &mut impl Write,
    command: &SlashCommand,
    invocation: Option<&SkillInvocation>,
) -> anyhow::Result<()> {
    let mut field = |label: &str, value: &str| -> std::io::Result<()> {
        writeln!(out, "{:<17}{value}", format!("{label}:"))
    };
    field("name", &format!("/{}", command.name()))?;
    field("type", kind(command))?;
    field("source", &command.source().to_string())?;
    field("description", command.description())?;
    if let Some(hint) = command.argument_hint() {
        field("argument hint", hint)?;
    }
    if !command.aliases().is_empty() {
        field("aliases", &command.aliases().join(", "))?;
    }
    field("user invocable", yes_no(command.is_user_invocable()))?;
    field("model invocable", yes_no(model_invocable(command)))?;
    if let SlashCommand::Prompt(skill) = command {
        write_skill_fields(&mut field, skill)?;
    }
    if let Some(invocation) = invocation {
        writeln!(out)?;
        if invocation.args.is_empty() {
            writeln!(out, "prompt:")?;
        } else {
            writeln!(out, "prompt (arguments: {}):", invocation.args)?;
        }
        writeln!(out, "{}", invocation.prompt.trim_end())?;
    }
    Ok(())
}

fn write_skill_fields(
    field: &mut impl FnMut(&str, &str) -> std::io::Result<()>,
    skill: &SkillPromptCommand,
) -> std::io::Result<()> {
    if let Some(path) = &skill.path {
        field("path", &path.display().to_string())?;
    }
    if let Some(when) = &skill.when_to_use {
        field("when to use", when)?;
    }
    if let Some(tools) = &skill.allowed_tools {
        field("allowed tools", &tools.join(", "))?;
    }
    if let Some(model) = &skill.model {
        field("model", model)?;
    }
    field("context", skill.context.as_str())?;
    if let Some(agent) = &skill.agent {
        field("agent", agent)?;
    }
    if let Some(hooks) = &skill.hooks {
        let events: Vec<&str> = hooks.keys().map(String::as_str).collect();
        field("hooks", &events.join(", "))?;
    }
    if let Some(interface) = &skill.interface {
        let parts: Vec<String> = [
            interface
                .display_name
                .as_ref()
                .map(|v| format!("display name {v:?}")),
            interface
                .short_description
                .as_ref()
                .map(|v| format!("short description {v:?}")),
            interface
                .icon_small
                .as_ref()
                .map(|v| format!("small icon {}", v.display())),
            interface
                .icon_large
                .as_ref()
                .map(|v| format!("large icon {}", v.display())),
            interface
                .brand_color
                .as_ref()
                .map(|v| format!("colour {v}")),
            interface
                .default_prompt
                .as_ref()
                .map(|v| format!("default prompt {v:?}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        field("interface", &parts.join("; "))?;
    }
    Ok(())
}

#[derive(Serialize)]
struct ListEntry<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    source: String,
    description: &'a str,
    argument_hint: Option<&'a str>,
    aliases: &'a [String],
    user_invocable: bool,
    model_invocable: bool,
    path: Option<&'a std::path::Path>,
}

#[derive(Serialize)]
struct ListJson<'a> {
    commands: Vec<ListEntry<'a>>,
    shadowed: &'a [agentctx_skills::ShadowedSkill],
    errors: &'a [agentctx_skills::SkillLoadError],
}

#[derive(Serialize)]
struct ShowJson<'a> {
    command: &'a SlashCommand,
    model_invocable: bool,
    prompt: Option<&'a str>,
}

fn list_json<'a>(registry: &'a CommandRegistry, outcome: &'a SkillLoadOutcome) -> ListJson<'a> {
    let commands = registry
        .get_all_commands()
        .iter()
        .map(|command| ListEntry {
            name: command.name(),
            kind: kind(command),
            source: command.source().to_string(),
            description: command.description(),
            argument_hint: command.argument_hint(),
            aliases: command.aliases(),
            user_invocable: command.is_user_invocable(),
            model_invocable: model_invocable(command),
            path: match command {
                SlashCommand::Prompt(skill) => skill.path.as_deref(),
                SlashCommand::Local(_) => None,
            },
        })
        .collect();
    ListJson {
        commands,
        shadowed: registry.shadowed(),
        errors: &outcome.errors,
    }
}

fn write_json(out: &mut impl Write, value: &impl Serialize) -> anyhow::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}
