//! [`CommandRegistry`]: the unified registry of every slash command, with the filtering
//! functions for user and model invocation and dispatch (why the rules are what they are:
//! docs/design/skills.md).
//!
//! Order of [`CommandRegistry::get_all_commands`]: loaded skills in priority order
//! (policy, user, project, plugin, bundled), then builtin prompt skills, then local
//! commands. Names are unique: local command names are reserved, and a loaded skill
//! replaces a builtin prompt skill of the same name.

use std::collections::BTreeSet;
use std::collections::HashSet;

use serde::Serialize;

use crate::builtin::LocalCommandKind;
use crate::builtin::builtin_local_commands;
use crate::builtin::builtin_prompt_skills;
use crate::config::SkillsConfig;
use crate::error::SkillError;
use crate::invocation::SkillInvocation;
use crate::loader::ShadowedSkill;
use crate::loader::SkillLoadOutcome;
use crate::skill::SkillPromptCommand;
use crate::slash_command::SlashCommand;
use crate::slash_command::parse_slash_command;
use crate::source::SkillSource;

/// What to do with a slash command the user typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CommandDispatch {
    /// Run the local command `kind` with `args` (`execute_local`).
    Local {
        /// The handler.
        kind: LocalCommandKind,
        /// The arguments, trimmed.
        args: String,
    },
    /// Send the skill's prompt to the model (`execute_prompt`). Boxed: an invocation (its
    /// prompt, settings and hooks) is far larger than a local command.
    Prompt(Box<SkillInvocation>),
}

/// Every enabled command.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CommandRegistry {
    commands: Vec<SlashCommand>,
    shadowed: Vec<ShadowedSkill>,
}

impl CommandRegistry {
    /// The registry of the loaded skills plus the builtins, minus disabled commands.
    pub fn new(loaded: &SkillLoadOutcome, config: &SkillsConfig) -> Self {
        let disabled: BTreeSet<&str> = config.disabled.iter().map(String::as_str).collect();
        let locals = builtin_local_commands();
        let reserved: HashSet<String> = locals.iter().map(|local| local.name.clone()).collect();
        let mut shadowed = loaded.shadowed.clone();
        let mut commands = Vec::new();
        let mut taken = HashSet::new();

        for skill in &loaded.skills {
            if reserved.contains(&skill.name) {
                if let Some(path) = &skill.path {
                    shadowed.push(ShadowedSkill {
                        name: skill.name.clone(),
                        path: path.clone(),
                        source: skill.source.clone(),
                        winner_path: None,
                        winner_source: SkillSource::Builtin,
                    });
                }
                continue;
            }
            taken.insert(skill.name.clone());
            commands.push(SlashCommand::Prompt(skill.clone()));
        }
        for builtin in builtin_prompt_skills() {
            if !taken.contains(&builtin.name) {
                commands.push(SlashCommand::Prompt(builtin));
            }
        }
        commands.extend(locals.into_iter().map(SlashCommand::Local));
        commands.retain(|command| !disabled.contains(command.name()));
        Self { commands, shadowed }
    }

    /// Every enabled command (`get_all_commands`).
    pub fn get_all_commands(&self) -> &[SlashCommand] {
        &self.commands
    }

    /// Skills the model may invoke: not `disable_model_invocation`, not builtin, and with
    /// a frontmatter description or `when_to_use`.
    pub fn get_llm_invocable_skills(&self) -> Vec<&SkillPromptCommand> {
        self.prompts()
            .filter(|skill| skill.is_llm_invocable())
            .collect()
    }

    /// Skills listed for the user in `/help`: not builtin, not hidden, and with a
    /// frontmatter description or `when_to_use`.
    pub fn get_user_skills(&self) -> Vec<&SkillPromptCommand> {
        self.prompts()
            .filter(|skill| skill.is_user_visible_skill())
            .collect()
    }

    /// Definitions that lost to another of the same name.
    pub fn shadowed(&self) -> &[ShadowedSkill] {
        &self.shadowed
    }

    /// The command called `name` (a leading `/` is ignored); names win over aliases.
    pub fn find(&self, name: &str) -> Option<&SlashCommand> {
        let name = name.strip_prefix('/').unwrap_or(name);
        self.commands
            .iter()
            .find(|command| command.name() == name)
            .or_else(|| {
                self.commands
                    .iter()
                    .find(|command| command.aliases().iter().any(|alias| alias == name))
            })
    }

    /// Resolves what the user typed. `Ok(None)` when the input is not a slash command.
    pub fn dispatch_user_input(&self, input: &str) -> Result<Option<CommandDispatch>, SkillError> {
        let Some(parsed) = parse_slash_command(input) else {
            return Ok(None);
        };
        let command = self
            .find(parsed.name)
            .ok_or_else(|| SkillError::UnknownCommand {
                name: parsed.name.to_string(),
            })?;
        match command {
            SlashCommand::Local(local) => Ok(Some(CommandDispatch::Local {
                kind: local.kind,
                args: parsed.args.to_string(),
            })),
            SlashCommand::Prompt(skill) if skill.user_invocable => Ok(Some(
                CommandDispatch::Prompt(Box::new(SkillInvocation::new(skill, parsed.args))),
            )),
            SlashCommand::Prompt(skill) => Err(SkillError::NotUserInvocable {
                name: skill.name.clone(),
            }),
        }
    }

    /// Invokes a skill for the model (the Skill tool), under the model filtering rules.
    pub fn invoke_by_model(&self, name: &str, args: &str) -> Result<SkillInvocation, SkillError> {
        match self.find(name) {
            Some(SlashCommand::Prompt(skill)) if skill.is_llm_invocable() => {
                Ok(SkillInvocation::new(skill, args))
            }
            Some(command) => Err(SkillError::NotModelInvocable {
                name: command.name().to_string(),
            }),
            None => Err(SkillError::UnknownCommand {
                name: name.to_string(),
            }),
        }
    }

    fn prompts(&self) -> impl Iterator<Item = &SkillPromptCommand> {
        self.commands.iter().filter_map(|command| match command {
            SlashCommand::Prompt(skill) => Some(skill),
            SlashCommand::Local(_) => None,
        })
    }
}
