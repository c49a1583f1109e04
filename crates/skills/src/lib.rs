//! Skills and the unified slash-command registry of agentctx.
//!
//! Slash commands and skills are one system: every command is either a local command
//! (`/help`, `/clear`, `/compact`, run without the model) or a prompt command, and every
//! skill is a prompt command. This crate loads skills from `SKILL.md` files (YAML
//! frontmatter plus a markdown prompt) and optional `SKILL.toml` interface metadata,
//! merges them with the builtin commands into a [`CommandRegistry`], applies the
//! filtering rules for user and model invocation, builds invocation prompts (argument
//! injection, base directory, 15,000-character budget), keeps a skill from running twice
//! at once ([`RunningSkills`]), caches loads ([`SkillCache`]) and orders skills by
//! time-decayed usage ([`SkillUsageTracker`]).
//!
//! Floor 1: it depends on no other agentctx crate. Skill directories are always passed
//! in ([`SkillRoots`]); nothing here reads the environment or the real home directory.
//!
//! ```
//! use agentctx_skills::CommandDispatch;
//! use agentctx_skills::CommandRegistry;
//! use agentctx_skills::SkillRoots;
//! use agentctx_skills::SkillsConfig;
//! use agentctx_skills::load_skills;
//!
//! let home = tempfile::tempdir()?;
//! let project = tempfile::tempdir()?;
//! let skill_dir = project.path().join(".agentctx/skills/greet");
//! std::fs::create_dir_all(&skill_dir)?;
//! std::fs::write(
//!     skill_dir.join("SKILL.md"),
//!     "---\ndescription: Greet someone\nargument-hint: <name>\n---\nSay hello to $ARGUMENTS.\n",
//! )?;
//!
//! let outcome = load_skills(&SkillRoots::new(home.path(), project.path()));
//! assert!(outcome.errors.is_empty());
//! let registry = CommandRegistry::new(&outcome, &SkillsConfig::default());
//! assert_eq!(registry.get_llm_invocable_skills()[0].name, "greet");
//!
//! match registry.dispatch_user_input("/greet Ada")? {
//!     Some(CommandDispatch::Prompt(invocation)) => {
//!         assert!(invocation.prompt.starts_with("Base directory for this skill: "));
//!         assert!(invocation.prompt.ends_with("Say hello to Ada.\n"));
//!     }
//!     other => return Err(format!("expected a prompt, got {other:?}").into()),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
mod arguments;
mod builtin;
mod cache;
mod config;
mod error;
mod frontmatter;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod help;
mod interface;
mod invocation;
mod loader;
mod registry;
mod roots;
mod running;
mod skill;
mod skill_file;
mod slash_command;
mod source;
mod usage;

// The public surface: what a host (the CLI, a core) needs to load skills, build the registry,
// dispatch and run commands, and read every type those hand back. The parsing helpers behind
// them stay private.
pub use builtin::LocalCommand;
pub use builtin::LocalCommandKind;
pub use cache::SkillCache;
pub use config::SkillsConfig;
pub use error::SkillError;
pub use frontmatter::HookDefinition;
pub use frontmatter::HookMatcher;
pub use frontmatter::SkillContext;
pub use frontmatter::SkillHooksConfig;
pub use help::render_help;
pub use interface::SkillInterface;
pub use invocation::SkillInvocation;
pub use loader::ShadowedSkill;
pub use loader::SkillLoadError;
pub use loader::SkillLoadOutcome;
pub use loader::load_skills;
pub use registry::CommandDispatch;
pub use registry::CommandRegistry;
pub use roots::PluginSkillDir;
pub use roots::SkillRoots;
pub use running::RunningSkillGuard;
pub use running::RunningSkills;
pub use skill::SkillPromptCommand;
pub use slash_command::SlashCommand;
pub use source::LoadedFrom;
pub use source::SkillSource;
pub use usage::SkillUsageData;
pub use usage::SkillUsageTracker;
pub use usage::UsageError;
